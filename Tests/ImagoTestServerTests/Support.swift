import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A URLSession that neither caches nor shares connections with other tests.
func makeSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = 10
    return URLSession(configuration: configuration)
}

/// `count` bytes of a fixed pattern that is not periodic over small spans.
func patternBytes(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

extension URLResponse {
    var status: Int { (self as? HTTPURLResponse)?.statusCode ?? -1 }
    func header(_ name: String) -> String? { (self as? HTTPURLResponse)?.value(forHTTPHeaderField: name) }
}
