import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The built-in transport: one URLSession (FoundationNetworking on Linux) whose delegate routes
/// each task's events to its `FetchOperation`. Delegate-based rather than `data(from:)` because
/// the status must be judged at the head (a 404 body is never read), the body must be able to
/// stream to a file (`download(from:)` cannot refuse a body at its head), and a cancelled caller
/// must be released at once instead of after URLSession's own teardown (55-85 ms measured here).
///
/// Trust: https is verified against the system's trust store, and on Linux that cannot be
/// changed, so this transport cannot trust a private CA there. FoundationNetworking hands the
/// delegate no server-trust challenge, and it points libcurl at the distribution's CA bundle
/// itself (the environment variable it reads for another file is honoured on Android only).
/// For a private CA use `AsyncHTTPClientTransport` with `Configuration.trustRoots`; the CLI
/// refuses `--ca-file` with `--transport urlsession` for this reason. A certificate the store
/// does not accept fails with `FetchError.tls`, which is never retried.
public final class URLSessionTransport: ImageTransport {
    private let session: URLSession
    private let router: TaskRouter
    private let maxRedirects: Int

    /// `maxConnectionsPerHost` defaults to 6, like browsers. `maxRedirects` (default 5, as
    /// `AsyncHTTPClientTransport`) bounds the redirects followed; one more, or one back to a URL
    /// already visited, fails with `.tooManyRedirects(limit:)`. URLSession's own cache is off:
    /// the pipeline's caches decide what is reused.
    public init(maxConnectionsPerHost: Int = 6, maxRedirects: Int = 5) {
        self.maxRedirects = maxRedirects
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        let router = TaskRouter()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "imago.urlsession.delegate"
        self.router = router
        self.session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    /// Fetches `request` through this transport's URLSession with `Accept-Encoding: identity`,
    /// judging the status at the head (a refused body is never read). `.stream` is buffered
    /// first (``ImageTransport/fetchBufferedThenStream(_:pieceSize:progress:)``); the idle
    /// timeout is rounded up to whole seconds. Cancelling the calling task throws `.cancelled`
    /// at once; the task's teardown finishes in the background.
    public func fetch(_ request: FetchRequest,
                      progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        try request.checkURL()
        if Task.isCancelled { throw .cancelled }
        if request.strategy == .stream { return try await fetchBufferedThenStream(request, progress: progress) }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = "GET"
        urlRequest.timeoutInterval = max(1, request.idleTimeout.seconds.rounded(.up))
        // The body as stored, unless the caller asked otherwise. libcurl would advertise gzip,
        // deflate, br and zstd and hand over decoded bytes only: the Content-Length then counts
        // bytes this transport never sees (a valid PNG from nginx's gzip_static failed as
        // truncated(4682 of 4714 bytes)), and images are compressed already, so encoding them
        // again gains nothing.
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let task = UncheckedTask(session.dataTask(with: urlRequest))
        // URLSessionTask.cancel() on Linux waits for the session's busy I/O queue (milliseconds
        // mid-transfer), and it would run on whichever thread cancelled, the main thread
        // included; the caller is already released by then, so the teardown goes elsewhere.
        let operation = FetchOperation(request: request, maxRedirects: maxRedirects, progress: progress) {
            DispatchQueue.global(qos: .utility).async { task.value.cancel() }
        }
        router.register(operation, for: task.value.taskIdentifier)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                operation.wait(continuation)
                task.value.resume()
            }
        } onCancel: {
            operation.cancel()
        }
        return try result.get()
    }
}

/// URLSessionTask is not Sendable; it is only resumed and cancelled, both thread-safe.
private struct UncheckedTask: @unchecked Sendable {
    let value: URLSessionDataTask
    init(_ value: URLSessionDataTask) { self.value = value }
}

/// The session delegate: forwards each task's callbacks to its operation.
private final class TaskRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let operations = Mutex<[Int: FetchOperation]>([:])

    func register(_ operation: FetchOperation, for identifier: Int) {
        operations.withLock { $0[identifier] = operation }
    }

    private func operation(_ task: URLSessionTask) -> FetchOperation? {
        operations.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let proceed = operation(dataTask)?.receive(head: response) ?? false
        // swift-corelibs-foundation does not stop the transfer for `.cancel` (a refused 64 MiB
        // body was measured arriving whole, the connection left open). Cancelling the task right
        // here, on the delegate queue, stops it as soon as corelibs processes the cancel; the
        // asynchronous `cancelTask` would wait behind the busy transfer.
        if !proceed { dataTask.cancel() }
        completionHandler(proceed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let proceed = operation(dataTask)?.receive(data) ?? false
        if !proceed { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        let follow = operation(task)?.redirect(to: request.url) ?? false
        // Not followed: corelibs then delivers the redirect response as the final head, where
        // the operation ends the fetch with the refusal (cancelling the task there). Cancelling
        // here instead traps in corelibs ("Received callback for HTTP redirection, but we're
        // not waiting"), and so does ending the fetch here (see FetchOperation.redirect(to:)).
        completionHandler(follow ? request : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let finished = operations.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        finished?.complete(error: error)
    }
}
