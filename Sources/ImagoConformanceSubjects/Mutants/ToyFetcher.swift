import Foundation
import Imago
import ImagoConformance
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a toy fetch produced.
enum ToyFetchOutcome: Sendable {
    /// The body, and whether the response allows storing it (not `Cache-Control: no-store`).
    case body(Data, storable: Bool)
    case failed(ObservedFailure, transient: Bool)
    case cancelled
}

/// The toy's network: Imago's transport (status judged at the head, truncation detected), or
/// (mutants) a bare URLSession data task that trusts whatever arrives.
protocol ToyFetcher: Sendable {
    func fetch(_ url: URL, progress: @escaping @Sendable (FetchProgress) -> Void) async -> ToyFetchOutcome
}

extension ToyFetcher {
    /// Whether a Cache-Control value says `no-store` (the toy honours HTTP-1, not freshness).
    static func forbidsStoring(_ cacheControl: String?) -> Bool {
        (cacheControl ?? "").lowercased().split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "no-store" }
    }
}

struct CheckedFetcher: ToyFetcher {
    let transport = URLSessionTransport()
    let bugs: Set<MutantBug>

    func fetch(_ url: URL, progress: @escaping @Sendable (FetchProgress) -> Void) async -> ToyFetchOutcome {
        do {
            let result = try await transport.fetch(FetchRequest(url: url), progress: progress)
            guard case .data(let data) = result.body else { return .failed(.other("unexpected body"), transient: false) }
            return .body(data, storable: !Self.forbidsStoring(result.head.headers["cache-control"]))
        } catch .cancelled {
            return .cancelled
        } catch .httpStatus(let code, _, _) {
            return .failed(.httpStatus(code), transient: FetchError.httpStatus(code).isTransient
                           || (code == 404 && bugs.contains(.notFoundRetried)))
        } catch .emptyData {
            return .failed(.emptyData, transient: false)
        } catch {
            return .failed(.transport(error.description), transient: error.isTransient)
        }
    }
}

/// Mutants: a bare URLSession data task that may skip the status check (`ignoresStatus`) or
/// take a broken connection for the end of the body (`acceptsTruncation`).
final class TrustingFetcher: NSObject, ToyFetcher, URLSessionDataDelegate, @unchecked Sendable {
    private struct Transfer {
        var data = Data()
        let continuation: CheckedContinuation<ToyFetchOutcome, Never>
        let progress: @Sendable (FetchProgress) -> Void
        var expected: Int?
        var rejectedStatus: Int?
        var storable = true
    }

    private let ignoresStatus: Bool
    private let acceptsTruncation: Bool
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]
    private lazy var session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)

    init(ignoresStatus: Bool, acceptsTruncation: Bool) {
        self.ignoresStatus = ignoresStatus
        self.acceptsTruncation = acceptsTruncation
    }

    func fetch(_ url: URL, progress: @escaping @Sendable (FetchProgress) -> Void) async -> ToyFetchOutcome {
        let task = lock.withLock { session.dataTask(with: url) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Cancelled before the transfer was registered: the task never starts (a task
                // cancelled before it ran may never report completion to the delegate).
                if Task.isCancelled { return continuation.resume(returning: .cancelled) }
                lock.withLock { transfers[task.taskIdentifier] = Transfer(continuation: continuation, progress: progress) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Breaks the session ↔ delegate cycle once the owning loader is gone.
    func invalidate() { lock.withLock { session }.invalidateAndCancel() }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let length = response.expectedContentLength
        let status = (response as? HTTPURLResponse)?.statusCode ?? 200
        let rejected = !ignoresStatus && !(200..<300).contains(status)
        lock.withLock {
            transfers[dataTask.taskIdentifier]?.expected = length >= 0 ? Int(length) : nil
            if rejected { transfers[dataTask.taskIdentifier]?.rejectedStatus = status }
            let cacheControl = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Cache-Control")
            transfers[dataTask.taskIdentifier]?.storable = !Self.forbidsStoring(cacheControl)
        }
        completionHandler(rejected ? .cancel : .allow)
        if rejected { dataTask.cancel() }   // FoundationNetworking may not honour the disposition alone
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let report = lock.withLock { () -> (@Sendable (FetchProgress) -> Void, FetchProgress)? in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return nil }
            transfer.data.append(data)
            transfers[dataTask.taskIdentifier] = transfer
            return (transfer.progress, FetchProgress(received: transfer.data.count, expected: transfer.expected))
        }
        if let (progress, value) = report { progress(value) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = lock.withLock({ transfers.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let status = transfer.rejectedStatus {
            transfer.continuation.resume(returning: .failed(.httpStatus(status),
                                                            transient: FetchError.httpStatus(status).isTransient))
        } else if let error = error as? URLError, error.code == .cancelled {
            transfer.continuation.resume(returning: .cancelled)
        } else if let error, transfer.data.isEmpty || !acceptsTruncation {
            transfer.continuation.resume(returning: .failed(.transport("\(error)"), transient: true))
        } else {
            transfer.continuation.resume(returning: transfer.data.isEmpty ? .failed(.emptyData, transient: false)
                                                                           : .body(transfer.data, storable: transfer.storable))
        }
    }
}
