import Foundation
import Imago

/// The feed's cold start: the first image over a new TLS connection through the delay proxy,
/// Imago (a fresh transport and pipeline: TCP and TLS handshakes, request, body, decode)
/// against curl fetching the same URL through the same proxy (handshakes, request, body
/// discarded; `%{time_total}`, which leaves out curl's own process start).
enum FeedColdStart {
    /// Imago's time to the decoded image, in milliseconds, over a transport made for this load
    /// and shut down after it.
    static func imagoMilliseconds(_ url: URL, configuration: AsyncHTTPClientTransport.Configuration) async throws -> Double {
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(transport: transport, diskCache: nil)))
        let start = ContinuousClock.now
        let result: Result<ImageResponse, ImageLoadingError>
        do { result = .success(try await pipeline.response(for: ImageRequest(source: .url(url)))) } catch { result = .failure(error) }
        let elapsed = ContinuousClock.now - start
        try await transport.shutdown()
        if case .failure(let error) = result { throw BenchError("cold load of \(url.absoluteString) failed: \(error)") }
        let (seconds, attoseconds) = elapsed.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// curl's total time for `url` in milliseconds, trusting `authorityFile`, asked for
    /// `version`; throws ``BenchError`` when curl is not installed, fails, or used another
    /// protocol than the one asked for (it names the one it used).
    static func curlMilliseconds(_ url: URL, authorityFile: URL, version: FeedProtocol) throws -> Double {
        guard let curl = curlExecutable else { throw BenchError(curlMissing) }
        let output = try ChildProcess.run(curl, ["--silent", "--show-error", "--fail", version.curlFlag,
                                                 "--cacert", authorityFile.path, "--output", "/dev/null",
                                                 "--write-out", "%{time_total} %{http_version}", url.absoluteString])
        let fields = output.split(separator: " ")
        guard fields.count == 2, let seconds = Double(fields[0]) else {
            throw BenchError("curl printed \(output.debugDescription), not a time and a protocol")
        }
        guard fields[1] == version.curlVersion else {
            throw BenchError("curl was asked for HTTP/\(version.curlVersion) and used HTTP/\(fields[1])")
        }
        return seconds * 1000
    }

    /// Debian's curl, or the first in the usual places; nil when there is none.
    static var curlExecutable: String? {
        ["/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let curlMissing = "curl is not installed (the cold start is compared with curl's on the same URL)"
}
