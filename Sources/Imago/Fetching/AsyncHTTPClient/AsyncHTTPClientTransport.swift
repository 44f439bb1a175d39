import AsyncHTTPClient
import Foundation
import Synchronization

/// A transport on swift-server's AsyncHTTPClient (SwiftNIO): the default on Linux, where it
/// replaces FoundationNetworking's libcurl-based URLSession (which cannot fetch IPv6 literals,
/// rounds timeouts to whole seconds and counts decoded bytes of an encoded body). Each fetch
/// streams the response body as an async sequence, so the next chunk is only read from the
/// socket once the current one is stored: a download to file holds a small window in memory
/// however large the body.
///
/// Lifetime. ``shared`` lives as long as the process, like `HTTPClient.shared`: pipelines come
/// and go (and have no async teardown), so the default must not need shutting down; it uses
/// NIO's process-wide event loops. An instance made with ``init(configuration:)`` owns its
/// connection pool (on the same event loops) and should be ended with ``shutdown()``, which
/// closes its connections; one released without it shuts down in the background.
///
/// What it guarantees (the same contract as `URLSessionTransport`): the status is judged at
/// the head, before any body byte is accepted (a refused body is never read: its connection is
/// closed, or over HTTP/2 its stream reset); a transfer short of its Content-Length is
/// `.truncated` (wire bytes, rule HTTP-3); the size limit holds as bytes arrive; a download's
/// temporary file never outlives a failure; cancelling the calling task ends the fetch promptly
/// with `.cancelled` and closes the connection at once (over HTTP/2, resets its stream; the
/// connection and the other fetches on it go on).
///
/// Protocol. HTTP/2 where an https server offers it, HTTP/1.1 otherwise (``Configuration/httpVersion``,
/// ``HTTPVersionPolicy``); ``FetchResponseHead/httpVersion`` says which a response came over.
public final class AsyncHTTPClientTransport: ImageTransport {
    /// The process-wide instance, on `HTTPClient.defaultEventLoopGroup` with the default
    /// ``Configuration``. ``shutdown()`` does nothing to it.
    public static let shared = AsyncHTTPClientTransport(configuration: Configuration(), isShared: true)

    /// What this transport was made with.
    public let configuration: Configuration
    private let client: HTTPClient
    private let isShared: Bool
    private let isShutDown = Mutex(false)
    /// Bytes held between receipt and storage, for tests of the memory bound.
    let inFlight = InFlightGauge()

    /// A transport with its own connection pool; end it with ``shutdown()``. `configuration`
    /// defaults to `Configuration()`, whose knobs state their own defaults.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, isShared: false)
    }

    private init(configuration: Configuration, isShared: Bool) {
        self.configuration = configuration
        self.isShared = isShared
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                            configuration: configuration.clientConfiguration())
    }

    deinit {
        // AsyncHTTPClient traps on a client released unshut (in debug builds); a transport
        // forgotten without shutdown() closes its idle connections in the background instead,
        // as URLSessionTransport's session is invalidated on release.
        if !isShared, !isShutDown.withLock({ $0 }) { client.shutdown { _ in } }
    }

    /// Closes every connection and fails fetches still running with `.transport`; returns when
    /// the connections are closed. Fetches started afterwards fail at once. Calling it again,
    /// or on ``shared``, does nothing.
    public func shutdown() async throws {
        guard !isShared else { return }
        let first = isShutDown.withLock { done in defer { done = true }; return !done }
        if first { try await client.shutdown() }
    }

    /// True for an https URL when ``Configuration/httpVersion`` is ``HTTPVersionPolicy/automatic``:
    /// the server may take HTTP/2 by ALPN. Should it speak HTTP/1.1 only, the first fetches wait
    /// in AsyncHTTPClient's queue for one of its connections (at most
    /// ``Configuration/maxConnectionsPerHost``), in the order the pipeline started them.
    public func mayMultiplex(_ url: URL) -> Bool {
        configuration.httpVersion == .automatic && url.scheme?.lowercased() == "https"
    }

    /// Fetches `request`, taking the body into memory, a file or the request's consumer chunk by
    /// chunk as it arrives, under the request's exact idle timeout and the configuration's
    /// `totalTimeout`. Throws `.transport` after ``shutdown()`` and `.cancelled` when the calling
    /// task is cancelled (no download file is left behind).
    public func fetch(_ request: FetchRequest,
                      progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        let httpRequest = try RequestBuilder.make(request)   // a bad URL fails before any I/O
        if Task.isCancelled { throw .cancelled }
        if isShutDown.withLock({ $0 }) { throw .transport("the AsyncHTTPClientTransport was shut down") }
        let watchdog = FetchWatchdog(idleTimeout: request.idleTimeout, totalTimeout: configuration.totalTimeout)
        let exchange = HTTPExchange(client: client, request: request, httpRequest: httpRequest,
                                    redirectLimit: configuration.maxRedirects,
                                    watchdog: watchdog, gauge: inFlight, progress: progress)
        // Exchange and watchdog race; the first to finish decides, the loser is cancelled (a
        // cancelled exchange closes its connection and removes its file before the group ends).
        let outcome = await withTaskGroup(of: Result<FetchResult, FetchError>?.self) { group in
            group.addTask { await exchange.run() }
            group.addTask {
                guard let timeout = await watchdog.run() else { return nil }
                return .failure(timeout)
            }
            var outcome: Result<FetchResult, FetchError>?
            while outcome == nil, let next = await group.next() { outcome = next }
            group.cancelAll()
            // A loser may still finish with a complete download (its last steps do not
            // suspend, so the cancel cannot stop them): nobody will receive that file.
            for await late in group {
                if case .success(let result)? = late, case .file(let url) = result.body {
                    try? FileManager.default.removeItem(at: url)
                }
            }
            return outcome ?? .failure(.cancelled)
        }
        if Task.isCancelled {
            // The caller gave up: whatever raced to the end, it gets `.cancelled` and no file.
            if case .success(let result) = outcome, case .file(let url) = result.body {
                try? FileManager.default.removeItem(at: url)
            }
            throw .cancelled
        }
        return try outcome.get()
    }
}
