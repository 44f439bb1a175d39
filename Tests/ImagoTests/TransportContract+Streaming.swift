import Foundation
import ImagoTestServer
import Synchronization
import Testing
@testable import Imago

/// What a transport does with `.stream`: the body goes to the request's consumer piece by
/// piece (nothing is kept), the head is judged before any piece, a consumer that throws stops
/// the transfer with its error, and the size limit, truncation and a missing consumer fail as
/// for the other strategies. (URLSessionTransport hands the body on after it arrived.)
extension TransportContract {
    func streaming(_ path: String, _ consumer: CollectingConsumer?, maxSize: Int = 256 << 20) -> FetchRequest {
        var request = request(path, .stream, maxSize: maxSize)
        request.bodyConsumer = consumer.map(BodyConsumerReference.init)
        return request
    }

    func streamingHandsTheBodyToItsConsumer() async throws {
        server.setRoute("/s.bin", Route(body: body))
        let consumer = CollectingConsumer()
        let seen = Mutex<[FetchProgress]>([])
        let result = try await transport.fetch(streaming("/s.bin", consumer)) { p in seen.withLock { $0.append(p) } }
        guard case .streamed = result.body else { Issue.record("\(result.body)"); return }
        #expect(consumer.bytes == body)
        #expect(consumer.pieces > 0)
        #expect(result.receivedBytes == body.count)
        #expect(seen.withLock { $0.last?.received } == body.count)
        try #expect(leftovers() == [], "a streamed body leaves no file")
    }

    func streamingJudgesTheHeadBeforeAnyPiece() async throws {
        server.setRoute("/gone.bin", Route(body: body, faults: Faults(status: 404)))
        let consumer = CollectingConsumer()
        await expectFailure(streaming("/gone.bin", consumer)) { $0.withoutHead == .httpStatus(404) }
        #expect(consumer.pieces == 0, "a 404 body reached the consumer")
    }

    func streamingStopsWhenTheConsumerRefuses() async throws {
        server.setRoute("/refused.bin", Route(body: body))
        let consumer = CollectingConsumer(refuseAfter: 1)
        await expectFailure(streaming("/refused.bin", consumer)) { $0 == .bodyRefused("enough") }
        #expect(consumer.pieces == 1, "pieces after the refusal")
    }

    func streamingKeepsTheLimitTruncationAndNeedsAConsumer() async throws {
        server.setRoute("/big.bin", Route(body: body))
        server.setRoute("/cut.bin", Route(body: body, faults: Faults(closeAfterBytes: body.count / 2)))
        let limited = CollectingConsumer()
        await expectFailure(streaming("/big.bin", limited, maxSize: 1000)) { $0 == .tooLarge(limit: 1000) }
        #expect(limited.bytes.count <= 1000)
        await expectFailure(streaming("/cut.bin", CollectingConsumer())) {
            if case .truncated = $0 { return true }
            return false
        }
        await expectFailure(streaming("/big.bin", nil)) { $0 == .bodyRefused("a streaming request without a body consumer") }
    }
}

/// Keeps what a streaming fetch hands it; throws `.bodyRefused("enough")` after `refuseAfter`
/// pieces.
final class CollectingConsumer: StreamingBodyConsumer {
    private let state = Mutex<(bytes: [UInt8], pieces: Int)>(([], 0))
    private let refuseAfter: Int?

    init(refuseAfter: Int? = nil) { self.refuseAfter = refuseAfter }

    var bytes: [UInt8] { state.withLock { $0.bytes } }
    var pieces: Int { state.withLock { $0.pieces } }

    func consume(_ piece: Data) async throws(FetchError) {
        let count = state.withLock { state -> Int in
            state.pieces += 1
            state.bytes += piece
            return state.pieces
        }
        if let refuseAfter, count >= refuseAfter { throw .bodyRefused("enough") }
    }
}
