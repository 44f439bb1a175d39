import ArgumentParser
import Foundation
import Logging
import Imago

/// The flags that build a loading pipeline and its decode options, shared by `imago load` and
/// `imago show` so both read them, check them and turn them into a pipeline the same way.
struct PipelineOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "How bodies are received: data (in memory), file (streamed to a file) or stream (decoded as they arrive). Default: file with --cache-dir, else data.",
        discussion: "With a disk cache, file downloads land in its directory and are renamed into it, and one that breaks mid-body is resumed with Range by the retry or the next run. stream keeps no copy of the body (with a disk cache, it is written beside the decode and stored once it decoded); a retry starts the body again."))
    var strategy: FetchStrategy?

    @Option(help: "The HTTP client (default: the pipeline's default on this platform).")
    var transport: BuiltInTransport = .platformDefault

    @Option(help: ArgumentHelp(
        "Trust only the certificate authorities in this PEM file for https (default: the system's trust store).",
        discussion: "Needs --transport ahc: FoundationNetworking's URLSession on Linux trusts the system's store only. A file that cannot be read exits 66, one without a PEM certificate 65.",
        valueName: "pem"),
        completion: .file())
    var caFile: String?

    @Flag(name: .customLong("http1"), help: ArgumentHelp(
        "Speak HTTP/1.1 only, even to an https server that offers HTTP/2 (default off: HTTP/2 where an https server offers it, HTTP/1.1 otherwise).",
        discussion: "Needs --transport ahc. Plain http is HTTP/1.1 either way. imago load counts the responses per protocol in its summary line (\"protocols\":{\"HTTP/2.0\":N})."))
    var http1Only = false

    @Option(help: "Seconds without receiving anything before a fetch fails (fractions allowed; default 30).")
    var timeout: Double = 30

    @Option(help: "Retry a transient failure (a broken transfer, 408, 429, 5xx) at most N times (default: the pipeline's, \(RetryPolicy().maxRetries)).")
    var retries: Int?

    @Option(help: "Use a disk cache in this directory (downloads then go there too; default: no disk cache).")
    var cacheDir: String?

    @Flag(help: ArgumentHelp(
        "When --cache-dir cannot be used, say so on stderr and load without a disk cache (default off: exit 73).",
        discussion: "A directory that cannot be created (a file in the way), may not be written (permissions, a read-only file system) or cannot be locked is unusable. A cache that fails later (a full disk, the directory removed) never fails a load either way: the image is delivered and not stored."))
    var ignoreUnusableCacheDir = false

    @Option(help: ArgumentHelp(
        "How the disk cache treats HTTP caching headers (default http).",
        discussion: "http: honour Cache-Control, Expires, Last-Modified and validators (RFC 9111); aggressive: store every image except no-store and reuse it without asking."))
    var cachePolicy: HTTPCachePolicy.Mode?

    @Option(help: "Disk entries stay fresh this many seconds after download or revalidation, whatever the server says (fractions allowed; default: the policy decides).")
    var ttl: Double?

    @Flag(help: "Revalidate every disk cache use with a conditional request (except immutable responses while fresh; default off).")
    var alwaysRevalidate = false

    @Flag(help: "Disable the memory cache (default: a memory cache).")
    var noMemoryCache = false

    @Option(help: "Scale down so the longest side is at most N pixels (default: full size).")
    var maxPixelSize: Int?

    @Flag(help: "Rotate/flip the pixels as the EXIF orientation says (default off).")
    var applyOrientation = false

    @Flag(help: "With --strategy stream: publish progressive previews (progressive JPEG scans, Adam7 PNG passes) while the body arrives (default off).")
    var previews = false

    @Option(help: "With --previews: the least seconds between two previews of one load (fractions allowed; default 0.25).")
    var previewInterval: Double = 0.25

    /// The longest `--ttl` (about 68 years): past it, milliseconds no longer fit a Duration.
    static let maxTTL = Double(Int32.max)

    func validate() throws {
        if !(timeout > 0) || !timeout.isFinite { throw ValidationError("--timeout must be a positive number of seconds") }
        if let retries, retries < 0 { throw ValidationError("--retries must be 0 or more") }
        if let n = maxPixelSize, n < 1 { throw ValidationError("--max-pixel-size must be at least 1") }
        if previews && strategy != .stream { throw ValidationError("--previews needs --strategy stream: only a streaming decode sees the image before its last byte") }
        if !(previewInterval >= 0) || !(previewInterval <= Self.maxTTL) {
            throw ValidationError("--preview-interval must be a number of seconds from 0 to \(Int(Self.maxTTL))")
        }
        if let ttl, !(ttl >= 0) || !(ttl <= Self.maxTTL) {
            throw ValidationError("--ttl must be a number of seconds from 0 to \(Int(Self.maxTTL))")
        }
        if http1Only && transport == .urlsession {
            throw ValidationError("--http1 needs --transport ahc: URLSessionTransport leaves the HTTP version to FoundationNetworking")
        }
        if caFile != nil && transport == .urlsession {
            throw ValidationError("--ca-file needs --transport ahc: URLSessionTransport cannot trust a private CA (FoundationNetworking on Linux uses the system's trust store only)")
        }
        let cacheOptions = [ttl != nil ? "--ttl" : nil, alwaysRevalidate ? "--always-revalidate" : nil,
                            cachePolicy != nil ? "--cache-policy" : nil,
                            ignoreUnusableCacheDir ? "--ignore-unusable-cache-dir" : nil].compactMap { $0 }
        if cacheDir == nil, let first = cacheOptions.first {
            throw ValidationError("\(first) applies to the disk cache: give --cache-dir too")
        }
    }

    /// How every source is decoded.
    var decodeOptions: DecodeOptions {
        DecodeOptions(maxPixelSize: maxPixelSize, applyOrientation: applyOrientation)
    }

    /// `--transport`'s transport; with `--ca-file` or `--http1`, an AsyncHTTPClient one of its
    /// own, trusting only that file's CAs and speaking HTTP/1.1 only as they say. A CA file that
    /// cannot be used is one line on standard error and exit 66 (cannot be read) or 65 (no PEM
    /// certificate in it), before anything else starts.
    func makeTransport() throws -> any ImageTransport {
        guard caFile != nil || http1Only else { return transport.make() }
        var configuration = AsyncHTTPClientTransport.Configuration(httpVersion: http1Only ? .http1Only : .automatic)
        if let caFile {
            do throws(TrustRootsError) {
                configuration.trustRoots = .only(try AsyncHTTPClientTransport.TrustRoots.certificates(inPEMFile: caFile))
            } catch {
                printError("error: --ca-file \(error)")
                if case .unreadable = error { throw ExitCode(66) }
                throw ExitCode(65)
            }
        }
        // Released with the pipeline at exit; its deinit closes the connections.
        return AsyncHTTPClientTransport(configuration: configuration)
    }

    /// The pipeline these flags describe, with `diskCache` (`openDiskCache()`'s, opened first
    /// so that an unusable directory is reported before anything else starts). Without a disk
    /// cache, downloads go to `temporaryDirectory` (the caller's run directory, removed when it
    /// ends); `events` sees every pipeline event. `transport` defaults to ``makeTransport()``'s
    /// (a caller that must report a bad `--ca-file` before it takes the terminal makes it first).
    func makePipeline(temporaryDirectory: URL, diskCache: DiskCache?, events: @escaping @Sendable (PipelineEvent) -> Void,
                      logger: Logger = ImagePipeline.Configuration.Diagnostics.quietLogger,
                      transport: (any ImageTransport)? = nil) throws -> ImagePipeline {
        let httpPolicy = HTTPCachePolicy(mode: cachePolicy ?? .http, timeToLive: ttl.map { .milliseconds(Int(($0 * 1000).rounded())) },
                                          alwaysRevalidate: alwaysRevalidate)
        var configuration = ImagePipeline.Configuration(
            dependencies: .init(transport: try transport ?? makeTransport(), memoryCache: noMemoryCache ? nil : MemoryCache(),
                                diskCache: diskCache),
            network: .init(fetchStrategy: strategy ?? (cacheDir != nil ? .file : .data), httpCachePolicy: httpPolicy,
                           // Validated positive and finite; from a billion seconds it means never, as before.
                           idleTimeout: timeout < 1e9 ? .seconds(timeout) : FetchRequest.noIdleTimeout,
                           temporaryDirectory: temporaryDirectory),
            diagnostics: .init(eventHandler: events, logger: logger))
        if let retries { configuration.network.retryPolicy.maxRetries = retries }
        if previews {
            configuration.previews = PreviewPolicy(minimumInterval: .milliseconds(Int((previewInterval * 1000).rounded())))
        }
        return ImagePipeline(configuration: configuration)
    }

    /// The exit status when `--cache-dir` cannot be used: `EX_CANTCREAT` (sysexits.h).
    static let unusableCacheDirStatus: Int32 = 73

    /// The disk cache `--cache-dir` names (nil without one). One that cannot be used is one line
    /// on stderr, `imago: cannot use the cache directory DIR: REASON`, and exit 73, or with
    /// `--ignore-unusable-cache-dir` the same line ending `; loading without a disk cache`, and nil.
    func openDiskCache() throws -> DiskCache? {
        guard let cacheDir else { return nil }
        do {
            return try DiskCache(directory: URL(fileURLWithPath: cacheDir))
        } catch {
            let reason = (error as? DiskCacheError)?.reason ?? "\(error)"
            let line = "imago: cannot use the cache directory \(cacheDir): \(reason)"
            guard ignoreUnusableCacheDir else {
                printError(line)
                throw ExitCode(Self.unusableCacheDirStatus)
            }
            printError(line + "; loading without a disk cache")
            return nil
        }
    }
}

extension FetchStrategy: ExpressibleByArgument {}
extension HTTPCachePolicy.Mode: ExpressibleByArgument {}
