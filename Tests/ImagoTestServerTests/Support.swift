import Foundation
import ImagoTestServer
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Starts a server, runs `body`, and shuts the server down whatever happens.
func withServer(
    _ configuration: TestServer.Configuration = .init(),
    _ body: (TestServer) async throws -> Void
) async throws {
    let server = try await TestServer.start(configuration)
    do {
        try await body(server)
    } catch {
        try await server.shutdown()
        throw error
    }
    try await server.shutdown()
}

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

/// A fresh temporary directory, removed by the caller's `defer`.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("imago-test-server-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

extension URLResponse {
    var status: Int { (self as? HTTPURLResponse)?.statusCode ?? -1 }
    func header(_ name: String) -> String? { (self as? HTTPURLResponse)?.value(forHTTPHeaderField: name) }
}
