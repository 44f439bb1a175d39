import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The state of one fetch between URLSession's callbacks and the awaiting caller. It finishes
/// exactly once, whichever comes first: head rejection, size limit, cancellation, or completion;
/// everything URLSession reports afterwards is ignored.
final class FetchOperation: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<FetchResult, FetchError>, Never>?
        var outcome: Result<FetchResult, FetchError>?
        var head: FetchResponseHead?
        var data = Data()
        var file: DownloadFile?
        /// Body bytes received, those a continued partial already held included.
        var received = 0
        /// Bytes a continued partial held before this response (0 unless resumed).
        var resumedFrom = 0
        /// What `received` should reach: the Content-Length, or a continued partial's total.
        var expected: Int?
        /// URLs visited so far (the request's first), to count redirects and see cycles.
        var visited: [URL] = []
        var finalURL: URL?
        /// A redirect refused (one too many, or a cycle): the failure the fetch ends with once
        /// URLSession has left the redirect (see `redirect(to:)`).
        var refusedRedirect: FetchError?
    }

    private let request: FetchRequest
    private let progress: @Sendable (FetchProgress) -> Void
    private let cancelTask: @Sendable () -> Void
    private let maxRedirects: Int
    private let state: Mutex<State>

    init(request: FetchRequest, maxRedirects: Int = 5, progress: @escaping @Sendable (FetchProgress) -> Void,
         cancelTask: @escaping @Sendable () -> Void) {
        self.request = request
        self.maxRedirects = maxRedirects
        self.progress = progress
        self.cancelTask = cancelTask
        var initial = State()
        initial.visited = [request.url]
        self.state = Mutex(initial)
    }

    /// Installs the caller's continuation (resumed at once if the fetch already finished).
    func wait(_ continuation: CheckedContinuation<Result<FetchResult, FetchError>, Never>) {
        let ready: Result<FetchResult, FetchError>? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(returning: ready) }
    }

    func cancel() {
        finish(.failure(.cancelled))
        cancelTask()
    }

    /// Allows a redirect to `url` unless it is one too many or goes back to a URL already
    /// visited (then the fetch fails with `.tooManyRedirects`); false: do not follow.
    ///
    /// A refusal does not end the fetch here. corelibs then delivers the redirect response as the
    /// final head (`receive(head:)`) or completes the task, and the fetch ends there: ending it
    /// now would let the caller go on while corelibs is still inside the redirect, and a cancel
    /// or a session invalidation reaching the task at that moment (the pipeline released, its
    /// transport's deinit) traps in corelibs ("Received callback for HTTP redirection, but
    /// we're not waiting for it"), killing the process. Seen under load in the nginx redirect
    /// loop test.
    func redirect(to url: URL?) -> Bool {
        state.withLock { state in
            guard state.outcome == nil, state.refusedRedirect == nil else { return false }
            guard let url, state.visited.count <= maxRedirects, !state.visited.contains(url) else {
                state.refusedRedirect = .tooManyRedirects(limit: maxRedirects)
                return false
            }
            state.visited.append(url)
            return true
        }
    }

    /// Judges the head; false tells URLSession not to read the body.
    func receive(head response: URLResponse) -> Bool {
        if let refused = state.withLock({ $0.refusedRedirect }) {
            finish(.failure(refused))
            return false
        }
        guard let http = response as? HTTPURLResponse else {
            finish(.failure(.transport("not an HTTP response")))
            return false
        }
        // A server may encode anyway (gzip_static always, objects stored pre-compressed): libcurl
        // decodes, and the Content-Length counts encoded bytes, not the ones received here. It is
        // then no expected length: no truncation is judged against it (libcurl fails a short
        // encoded body itself), progress has no total, and the size limit applies to the decoded
        // bytes as they arrive.
        let encoding = http.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
        let encoded = encoding.map { !$0.isEmpty && $0 != "identity" } ?? false
        let expected = !encoded && response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil
        let head = FetchResponseHead(
            statusCode: http.statusCode, expectedLength: expected,
            contentType: http.value(forHTTPHeaderField: "Content-Type"),
            etag: http.value(forHTTPHeaderField: "ETag"),
            lastModified: http.value(forHTTPHeaderField: "Last-Modified"),
            headers: FetchResponseHead.fields(http.allHeaderFields.compactMap { name, value in
                (name as? String).map { ($0, "\(value)") }
            }))
        let (finalURL, redirects) = state.withLock { ($0.visited.last, $0.visited.count - 1) }
        if http.statusCode == 304 {
            finish(.success(FetchResult(head: head, body: .notModified, receivedBytes: 0,
                                        finalURL: http.url ?? finalURL, redirects: redirects)))
            return false
        }
        guard (200...299).contains(http.statusCode) else {
            let retryAfter = FetchError.isTransientStatus(http.statusCode)
                ? RetryAfter.parse(http.value(forHTTPHeaderField: "Retry-After")) : nil
            finish(.failure(.httpStatus(http.statusCode, retryAfter: retryAfter, head: head)))   // the disk cache judges it
            return false
        }
        if let expected, expected > request.maxResponseSize {
            finish(.failure(.tooLarge(limit: request.maxResponseSize)))
            return false
        }
        do {
            let file = try request.strategy == .file ? DownloadFile(request, head: head) : nil
            let accepted = state.withLock { state in
                guard state.outcome == nil else { return false }
                state.head = head
                state.finalURL = http.url ?? finalURL
                state.file = file
                // A body continuing a partial counts the bytes it held (see HTTPExchange).
                let offset = file?.offset ?? 0
                (state.received, state.resumedFrom) = (offset, offset)
                state.expected = offset > 0 ? file?.total : expected
                // One allocation of the announced size (already checked against the limit)
                // instead of a doubling buffer that briefly holds old and new copies.
                if file == nil, let expected { state.data.reserveCapacity(expected) }
                return true
            }
            // Cancelled while the file was being opened: nobody else will close it.
            if !accepted { file?.abandon() }
            return accepted
        } catch {
            finish(.failure(error))
            return false
        }
    }

    /// Takes a body chunk; false when the fetch is over (finished, or this chunk broke the size
    /// limit) and the transfer should stop.
    @discardableResult
    func receive(_ chunk: Data) -> Bool {
        let report: Result<FetchProgress, FetchError>? = state.withLock { state in
            guard state.outcome == nil, state.head != nil else { return nil }
            state.received += chunk.count
            if state.received > request.maxResponseSize { return .failure(.tooLarge(limit: request.maxResponseSize)) }
            if let file = state.file {
                do throws(FetchError) { try file.write(chunk) } catch { return .failure(error) }
            } else {
                state.data.append(chunk)
            }
            return .success(FetchProgress(received: state.received, expected: state.expected))
        }
        switch report {
        case .success(let update):
            progress(update)
            return true
        case .failure(let error):
            finish(.failure(error))
            cancelTask()
            return false
        case nil:
            return false
        }
    }

    func complete(error: Error?) {
        let outcome: Result<FetchResult, FetchError>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            if let refused = state.refusedRedirect { return .failure(refused) }
            guard let head = state.head else {
                return .failure(map(error) ?? .transport("no response"))
            }
            let failure = map(error)
            if failure == .timedOut || failure == .cancelled { return .failure(failure!) }
            // A connection that closed early is a truncation, whatever the socket error says.
            if let expected = state.expected, state.received < expected {
                return .failure(.truncated(expected: expected, received: state.received))
            }
            if let failure { return .failure(failure) }
            if state.received == 0 { return .failure(.emptyData) }
            let body: FetchResult.Body
            if let file = state.file {
                state.file = nil
                do throws(FetchError) { body = try file.finish() } catch { return .failure(error) }
            } else {
                body = .data(state.data)
            }
            return .success(FetchResult(head: head, body: body, receivedBytes: state.received - state.resumedFrom,
                                        finalURL: state.finalURL, redirects: state.visited.count - 1,
                                        resumedFrom: state.resumedFrom))
        }
        if let outcome { finish(outcome) }
    }

    private func map(_ error: Error?) -> FetchError? {
        guard let error else { return nil }
        if let urlError = error as? URLError {
            if let reason = TLSFailureReason.describe(urlError, origin: TLSFailureReason.origin(urlError.failingURL ?? request.url)) {
                return .tls(reason)
            }
            switch urlError.code {
            case .cancelled: return .cancelled
            case .timedOut: return .timedOut
            case .httpTooManyRedirects: return .tooManyRedirects(limit: maxRedirects)
            case .redirectToNonExistentLocation: return .transport("a redirect without a usable Location")
            case .unsupportedURL: return .unsupportedScheme(urlError.failingURL?.scheme ?? "unknown")
            case .badURL: return .invalidURL(urlError.localizedDescription)
            default: return .transport(urlError.localizedDescription)
            }
        }
        return .transport("\(error)")
    }

    /// Records the outcome once, releases file and memory, resumes the caller. A file still held
    /// here was not handed over (a success took it already): it is abandoned (removed, or a
    /// resumable partial closed for its owner to settle).
    private func finish(_ outcome: Result<FetchResult, FetchError>) {
        let (continuation, file): (CheckedContinuation<Result<FetchResult, FetchError>, Never>?, DownloadFile?)
            = state.withLock { state in
                guard state.outcome == nil else { return (nil, nil) }
                state.outcome = outcome
                let taken = (state.continuation, state.file)
                state.continuation = nil
                state.file = nil
                state.data = Data()
                return taken
            }
        file?.abandon()
        continuation?.resume(returning: outcome)
    }
}
