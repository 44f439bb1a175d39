import Foundation
import NIOCore
import Testing
@testable import Imago

/// What a user reads when AsyncHTTPClient fails below HTTP: the system's words and the server,
/// never NIO's debugging description.
@Suite struct FetchErrorWordingTests {
    @Test func aRefusedConnectionNamesTheServer() throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/a.jpg"))
        let error = FetchErrorMapping.beforeHead(IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)"),
                                                 redirectLimit: 5, url: url)
        #expect(error == .transport("Connection refused (127.0.0.1:9)"))
    }

    @Test func aResetMidBodyWithoutALengthIsWordedByTheSystem() {
        let error = FetchErrorMapping.midBody(IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)"),
                                              expected: nil, received: 10)
        #expect(error == .transport("Connection reset by peer"))
    }

    @Test func aRefusedConnectionThroughTheTransportReadsPlainly() async throws {
        let transport = AsyncHTTPClientTransport(configuration: .init())
        let url = try #require(URL(string: "http://127.0.0.1:9/a.jpg"))
        let outcome: Result<FetchResult, FetchError>
        // The refusal comes back in milliseconds, but under ThreadSanitizer with the whole suite
        // running beside it the event loop once took longer than the default 30 s idle timeout
        // (CI, stop 32), and the test read `.timedOut`: the timeout here only bounds a hang.
        let request = FetchRequest(url: url, idleTimeout: .seconds(300))
        do { outcome = .success(try await transport.fetch(request) { _ in }) } catch { outcome = .failure(error) }
        try await transport.shutdown()
        guard case .failure(.transport(let message)) = outcome else {
            Issue.record("not a transport failure: \(outcome)")
            return
        }
        #expect(!message.contains("errno"), "\(message)")
        #expect(message.contains("127.0.0.1:9"), "\(message)")
    }
}
