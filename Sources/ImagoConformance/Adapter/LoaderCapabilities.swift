/// What a loader declares it has. Rules that need a capability the loader lacks are reported
/// "not applicable" naming it, never passed by default.
///
/// Declaring a capability is a promise: each one below says which `LoaderContext` fields the
/// adapter must pass on to the loader (and the loader honour), which probe it must expose, and
/// which rules it turns on. Rules without a capability (INIT, TRANS, CACHE-3, SOURCE-1/2,
/// SHARE-1..4, ERR, RETRY-3, ORDER, MEM-5, HTTP-3) apply to every loader; two capabilities
/// (`.staysEmptyWithoutSource`, `.reloadsOnSourceChange`) change what some of them expect instead
/// of turning rules on.
public struct LoaderCapabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The capability bits, one per static member below (bit 0 `memoryCache`, and so on).
    public let rawValue: Int
    /// The capabilities whose bits are set in `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A memory cache of decoded images, inspectable through `MemoryCacheProbe`.
    /// - Honour `memoryCostLimit` (total) and `memoryEntryCostLimit` (per image); the probe's
    ///   `costLimit` must report the total asked for.
    /// - Cost is the decoded size: width × height × 4 bytes (row padding up to 64 bytes a row
    ///   is tolerated).
    /// - Least recently used goes first: a memory hit refreshes an entry's recency; the total
    ///   stays within the limit after every insert; an image over the per-entry limit is not
    ///   inserted and evicts nothing, and its load still succeeds.
    /// - `trim(toCost:)` drops least recently used entries until the total is at most the
    ///   target, and what remains is still served.
    /// - A hit publishes exactly one `success(origin: .memory)` inside `load()`, with no request
    ///   and no decode; failed or truncated loads leave nothing in memory.
    /// Rules: CACHE-1, MEM-1, MEM-2, MEM-3; changes the origins CACHE-2 and CACHE-3 expect.
    public static let memoryCache = LoaderCapabilities(rawValue: 1 << 0)
    /// A disk cache of original bytes, inspectable through `DiskCacheProbe`.
    /// - Honour `cacheDirectory`: a second loader built from the same context is the app after a
    ///   restart and must see every entry whose load has published `success`.
    /// - Honour `diskSizeLimit` (the probe's `sizeLimit` reports it): the bytes really in the
    ///   directory stay within it after every write, keeping as many recent entries as fit.
    /// - File names are a hash of the key; two loaders writing one key leave one complete entry.
    ///   DISK-3 watches the directory: an entry's file name starts with the 64 hex digits of the
    ///   key's SHA-256; a file still being written starts with `.` or ends in `.tmp`, `.part`
    ///   (or `.temp`, `.partial`, `.download`, `.incomplete`), and only those may appear and go
    ///   during a load that fails.
    /// - Store only complete, decodable bodies (no error pages, truncated or empty bodies), and
    ///   never a `Cache-Control: no-store` response.
    /// - An entry that does not decode is a miss: removed and fetched again.
    /// - `simulateCrashWhileStoring` must leave exactly what the real writer leaves when the
    ///   process dies mid-write; a new instance must neither serve that nor keep it on disk.
    /// Rules: CACHE-2, CACHE-4, DISK-1..4, HTTP-1 (and HTTP-2 with `.httpFreshness`).
    public static let diskCache = LoaderCapabilities(rawValue: 1 << 1)
    /// Automatic retries of transient failures (connection errors, truncation, 408, 429, 5xx),
    /// at most `LoaderContext.maxRetries` times, never for other 4xx, decoding errors or a
    /// cancel; the phase stays `loading` until the one terminal phase after the last try. The
    /// back-off starts at `retryDelay`. Rules: RETRY-1, RETRY-2.
    public static let retries = LoaderCapabilities(rawValue: 1 << 2)
    /// Back-off waits sleep on `LoaderContext.clock` (a `ManualClock` the check advances), so a
    /// `cancel()` during a back-off can be shown to stop further requests (the second half of
    /// RETRY-2; needs `.retries`).
    public static let injectableClock = LoaderCapabilities(rawValue: 1 << 3)
    /// Byte progress inside `loading(received:expected:)`: at least two reports for a throttled
    /// body, never decreasing, `expected` the Content-Length or nil when the length is unknown
    /// (chunked). Rule: PROGRESS-1.
    public static let progress = LoaderCapabilities(rawValue: 1 << 4)
    /// AsyncImage's profile: `load()` without a source stays `empty` (and makes no request)
    /// instead of publishing `failure(missingSource)`. INIT-2 then verifies that and reports n/a.
    public static let staysEmptyWithoutSource = LoaderCapabilities(rawValue: 1 << 5)
    /// Priorities and a network limit: honour `LoaderContext.maxConcurrentFetches` (the check
    /// sets 1), report loads waiting for a slot in `LoaderUnderTest.queuedFetchCount`, accept
    /// `ModelUnderTest.setPriority(_:)`, and admit queued work by the highest priority among its
    /// live subscribers (raised, lowered, or after the highest one cancelled). Rule: SHARE-5.
    public static let priorities = LoaderCapabilities(rawValue: 1 << 6)
    /// A choice of fetch strategies, made by `LoaderContext.fetchStrategy`: `.data` and `.file`,
    /// plus `.stream` with `.decodesWhileStreaming` (`fetchStrategies` lists them). Every one
    /// gives identical pixels and the same phase sequence, apart from progress and previews, for
    /// a success, a 404, a truncation, an empty body and progressive images.
    /// Rules: FETCH-1 (`.data` against `.file`), FETCH-3 (every strategy offered).
    public static let selectableFetchStrategy = LoaderCapabilities(rawValue: 1 << 7)
    /// Fetches by streaming the body to a file in `LoaderContext.temporaryDirectory` (or the
    /// disk cache's directory) as it arrives, and leaves no temporary or partial file behind.
    /// Rule: FETCH-2.
    public static let downloadsToFile = LoaderCapabilities(rawValue: 1 << 8)
    /// Requests can carry a target size (`ConformanceSource.maxPixelSize`): the decoded image's
    /// longest side is at most that, and the size is part of the memory cache's and the
    /// coalescing's key. Rule: SOURCE-3.
    public static let targetSize = LoaderCapabilities(rawValue: 1 << 9)

    /// The disk cache honours HTTP freshness: a stored response is used without a request only
    /// while `Cache-Control`/`Expires`/a heuristic says it is fresh, and is revalidated otherwise
    /// (a conditional request whose 304 serves the stored bytes, origin `.disk`) (HTTP-2 and
    /// MODEL-HTTP, with `.diskCache`; MODEL-HTTP judges generated headers against RFC 9111). A loader that ignores freshness on purpose (store everything, reuse without
    /// asking) declares that by leaving this out.
    public static let httpFreshness = LoaderCapabilities(rawValue: 1 << 10)

    /// A memory-pressure hook MEM-4 can trigger through `LoaderUnderTest.memoryPressure` (a
    /// `MemoryPressureProbe`), with `.memoryCache`. Commits the loader to: after a warning its
    /// memory cache holds at most half the cost it held before the event, after a critical
    /// nothing; loads in flight are neither failed nor cancelled by it (each ends in exactly one
    /// terminal phase, a success, as memory is really there); the cache works afterwards.
    /// Rule: MEM-4.
    public static let memoryPressure = LoaderCapabilities(rawValue: 1 << 11)

    /// Decode while streaming (`LoaderContext.FetchStrategy.stream`): the loader hands each
    /// piece of the body to its decoder as it arrives, by default or when the context asks for
    /// `.stream` (which it must then honour). Commits the loader to:
    /// - never holding the whole compressed body in memory: a decoder's bounded buffer aside,
    ///   what arrives is decoded and let go (with a disk cache it may also be written to a file
    ///   as it arrives, in `temporaryDirectory` or the cache's directory); with no disk cache no
    ///   copy of the body goes to a file either, and no file is left in either directory;
    /// - a `cancel()` mid-stream ending the transfer and the decode together: the phase is
    ///   `empty` before `cancel()` returns, the connection is closed (the server sees it within
    ///   5 s), the decode's memory is given back (the live heap, and with a `LifetimeProbe` the
    ///   live decoded bytes, return to their baseline within 5 s), what the stream wrote is
    ///   deleted, and nothing more is published;
    /// - with `.selectableFetchStrategy`, the pixels and phases of `.data` and `.file`, apart from
    ///   progress and previews (FETCH-3 adds `.stream` to the strategies it compares).
    /// Rule: FETCH-4 (and `.stream` in FETCH-3 and HTTP-3).
    public static let decodesWhileStreaming = LoaderCapabilities(rawValue: 1 << 12)

    /// Progressive previews: while a progressive JPEG's scans or an Adam7-interlaced PNG's passes
    /// arrive, the model publishes coarse images of the one being loaded (with the strategy the
    /// loader uses by default, or `.stream` when it declares `.decodesWhileStreaming`: PREVIEW-1
    /// asks for that). Commits the loader to:
    /// - publishing a preview only inside `loading`, never as `success` and never after the
    ///   attempt's terminal phase, which still comes exactly once;
    /// - previews of one attempt in strictly increasing detail (the scan or pass shown, from 1);
    /// - a bounded rate: no two previews of one attempt closer together than
    ///   `LoaderContext.previewInterval` when the context sets it;
    /// - a preview no larger than the request's target size (`ConformanceSource.maxPixelSize`,
    ///   with `.targetSize`), nor than the image;
    /// - at least one preview while a body is held after some complete scans or passes (PREVIEW-1
    ///   holds a progressive JPEG after 3 or 4 scans and an Adam7 PNG after 5 passes, and waits
    ///   10 s at most), and the whole image, exact for the PNG, once the rest has arrived.
    /// A baseline JPEG or a non-interlaced PNG may show partial images or none; that is not judged.
    /// The adapter maps a preview to `ObservedPhase.loading(…, preview: ObservedPreview(detail:
    /// width:height:))`: the detail the loader reports (increasing within an attempt) and the
    /// preview's pixel size; a model that keeps showing its latest preview with later progress
    /// may repeat it in later `loading` phases. Rule: PREVIEW-1.
    public static let progressivePreviews = LoaderCapabilities(rawValue: 1 << 13)

    /// AsyncImage's source-change profile: changing the source starts the new source's load at
    /// once (SwiftUI's `AsyncImage` reloads when its URL changes; OpenSwiftUI's audited
    /// reimplementation also keeps the old phase while the new load runs). Without it,
    /// `setSource(_:)` publishes `empty` and waits for `load()`. Commits the loader to, for
    /// `setSource(B)` with B a different, non-nil source while A was the source:
    /// - A's attempt is abandoned as `cancel()` abandons it: nothing of it (image, progress,
    ///   error, cancellation) is published after `setSource(B)` returns, whenever its response
    ///   arrives (SOURCE-1, TRANS-3), and the change never publishes a `failure` (TRANS-4);
    /// - B's attempt starts before `setSource(B)` returns (its request may leave later), and
    ///   before returning the phase is either `loading` (whose `previous` may carry A's image),
    ///   `success(origin: .memory)` of B on a memory hit (CACHE-1's hit, allowed from any phase),
    ///   or unchanged: nothing published during the call, the phase A left kept until B's first
    ///   publication (OpenSwiftUI's way);
    /// - B's first publication is `loading` or a memory hit, never A's image as a success; from
    ///   then on A's image appears only as `loading(previous:)` (SOURCE-2);
    /// - `load()` right after the change is a repeated load of B and does nothing (SHARE-1);
    ///   `setSource(nil)` still cancels and publishes `empty` before returning (INIT-2 then
    ///   applies to the next `load()`); the same source again does nothing.
    /// Changes what TRANS-2, TRANS-4, SOURCE-1, SOURCE-2, SHARE-1 and ORDER-2 expect right after
    /// a source change (Docs/phase-rules.md, "Declared profiles"); turns no rule off.
    public static let reloadsOnSourceChange = LoaderCapabilities(rawValue: 1 << 14)

    /// Resumable downloads: a transfer that breaks mid-body is continued by the fetch's next
    /// attempt, an automatic retry (so it comes with `.retries` and `.injectableClock`: FETCH-5
    /// sets `LoaderContext.maxRetries` to 2 and a `retryDelay` of 1 s on `LoaderContext.clock`,
    /// and changes the server between the attempts while the back-off waits), with the strategy
    /// the loader uses by default. When the broken response carried a strong validator (an
    /// `ETag`, or a `Last-Modified` old enough to be strong) and `Accept-Ranges: bytes`, the
    /// retry asks only for the bytes it lacks, `Range: bytes=N-` with N the bytes it kept (never
    /// more than the server sent), and `If-Range` with that validator. Commits the loader to:
    /// - the pixels of an uninterrupted transfer, each byte of the continuation received once;
    /// - starting over when the representation changed (the server answers the `If-Range` with a
    ///   200 and the whole new body): the new pixels, nothing of the old bytes kept;
    /// - the same when a server ignores `Range` and answers 200 with the whole body.
    /// A retry() or a later load() may resume too (Imago's download to file does with a disk
    /// cache); FETCH-5 does not judge that. Rule: FETCH-5.
    public static let resumableDownloads = LoaderCapabilities(rawValue: 1 << 15)

    /// The strategies a loader offers, in the order FETCH-3 compares them: `.data` and `.file`
    /// with `.selectableFetchStrategy`, `.stream` with `.decodesWhileStreaming`.
    public var fetchStrategies: [LoaderContext.FetchStrategy] {
        LoaderContext.FetchStrategy.allCases.filter { strategy in
            switch strategy {
            case .data, .file: contains(.selectableFetchStrategy)
            case .stream: contains(.decodesWhileStreaming)
            }
        }
    }

    static let names: [(LoaderCapabilities, String)] = [
        (.memoryCache, "memoryCache"), (.diskCache, "diskCache"), (.retries, "retries"),
        (.injectableClock, "injectableClock"), (.progress, "progress"),
        (.staysEmptyWithoutSource, "staysEmptyWithoutSource"), (.priorities, "priorities"),
        (.selectableFetchStrategy, "selectableFetchStrategy"), (.downloadsToFile, "downloadsToFile"),
        (.targetSize, "targetSize"), (.httpFreshness, "httpFreshness"), (.memoryPressure, "memoryPressure"),
        (.decodesWhileStreaming, "decodesWhileStreaming"), (.progressivePreviews, "progressivePreviews"),
        (.reloadsOnSourceChange, "reloadsOnSourceChange"),
        (.resumableDownloads, "resumableDownloads"),
    ]

    /// The names of the declared capabilities, comma-separated without spaces (e.g.
    /// `memoryCache,diskCache,retries`): how reports list them.
    public var description: String {
        Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ",")
    }
}
