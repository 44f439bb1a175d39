import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a fetch failed.
public enum FetchError: Error, Sendable, Equatable {
    /// A non-2xx status, decided at the response head: the body was not downloaded.
    case httpStatus(Int)
    case network(String)
    case cancelled
}

/// Fetches whole bodies with URLSession data tasks. The status is judged at the response head
/// by `FetchDelegate`, so an error page is never downloaded (ERR-1); cancelling the Swift task
/// cancels the data task.
public final class ImageFetcher: Sendable {
    private let delegate = FetchDelegate()
    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        // The disk cache below is ours; URLSession's own would answer requests behind our back.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        // A session keeps its delegate (and its libcurl handles) until it is invalidated.
        session.invalidateAndCancel()
    }

    public func fetch(_ url: URL) async throws(FetchError) -> Data {
        let task = session.dataTask(with: url)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                delegate.begin(task) { continuation.resume(returning: $0) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }
}
