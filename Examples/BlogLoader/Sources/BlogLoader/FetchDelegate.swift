import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The URLSession-on-Linux recipe for judging the status at the response head.
///
/// corelibs FoundationNetworking has no `bytes(for:)`, and it ignores the `.cancel` disposition
/// given to `completionHandler` in `didReceive response`: the body is downloaded anyway. What
/// works is cancelling the data task there, and ending the transfer at once. Callbacks may still
/// arrive for it afterwards (a late `didReceive data`, the cancellation's completion), so every
/// callback first re-checks that its transfer is still open: the table entry is removed exactly
/// once, by whoever ends the transfer first.
final class FetchDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Transfer {
        var body = Data()
        var expectedLength: Int64 = -1
        let finish: @Sendable (Result<Data, FetchError>) -> Void
    }

    private let transfers = Mutex<[Int: Transfer]>([:])

    func begin(_ task: URLSessionTask, finish: @escaping @Sendable (Result<Data, FetchError>) -> Void) {
        transfers.withLock { $0[task.taskIdentifier] = Transfer(finish: finish) }
    }

    /// Ends `task`'s transfer if it is still open; later callbacks for it find nothing.
    private func end(_ task: URLSessionTask, _ outcome: (Transfer) -> Result<Data, FetchError>) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        transfer.finish(outcome(transfer))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            end(dataTask) { _ in .failure(.httpStatus(status)) }
            dataTask.cancel()          // this, not the disposition, stops the body on Linux
            completionHandler(.cancel) // what Darwin honours
            return
        }
        transfers.withLock { $0[dataTask.taskIdentifier]?.expectedLength = response.expectedContentLength }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfers.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        end(task) { transfer in
            if let error {
                return .failure((error as? URLError)?.code == .cancelled ? .cancelled : .network("\(error)"))
            }
            // A connection closed early can complete without an error: trust Content-Length.
            if transfer.expectedLength >= 0 && Int64(transfer.body.count) < transfer.expectedLength {
                return .failure(.network("\(transfer.body.count) of \(transfer.expectedLength) bytes"))
            }
            return .success(transfer.body)
        }
    }
}
