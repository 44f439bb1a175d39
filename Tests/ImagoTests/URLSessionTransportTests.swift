import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Imago

/// The URLSession transport's own regressions, beyond the transport contract
/// (`TransportContractTests` runs that for every transport; `TestTransports` says which checks
/// URLSession lacks the means for, and why).
@Suite struct URLSessionTransportTests {
    /// Regression: a head arriving after the caller cancelled created the download file after
    /// the cancellation had cleaned up, and nothing removed it.
    @Test func aHeadAfterCancellationLeavesNoDownloadFile() async throws {
        try await TransportContract.with(URLSessionTransport()) { contract in
            let operation = FetchOperation(request: contract.request("/late-head", .file), progress: { _ in },
                                           cancelTask: {})
            operation.cancel()
            let head = try #require(HTTPURLResponse(url: contract.server.url(for: "/late-head"), statusCode: 200,
                                                     httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "10"]))
            #expect(!operation.receive(head: head))
            try #expect(contract.leftovers() == [])
        }
    }
}
