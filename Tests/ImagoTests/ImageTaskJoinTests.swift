import Foundation
import ImagoTestServer
import Testing
@_spi(Testing) @testable import Imago

/// An image task has joined the shared work for its key when `imageTask(for:)` returns, so
/// loads of one key started together are coalesced however late their tasks are scheduled
/// (SHARE-2 must not depend on how busy the machine is).
@Suite struct ImageTaskJoinTests {
    private let jpeg = Data(TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg"))

    @Test func fiveTasksOfOneKeyHaveJoinedWhenTheyAreReturned() async throws {
        let gate = Gate()
        let jpeg = self.jpeg
        let source = ImageSource.custom(CustomImageSource(id: "held") {
            try await gate.waitUntilOpen(timeout: .seconds(30))
            return .encoded(jpeg)
        })
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil)))
        let request = ImageRequest(source: source)
        let tasks = (0..<5).map { _ in pipeline.imageTask(for: request) }
        // No await since the first call: a joiner scheduled as an ordinary task would not be
        // counted yet.
        #expect(pipeline.decodes.subscriberCount(for: request.key) == 5)
        gate.open()
        for task in tasks { _ = try await task.response }
        #expect(pipeline.counters.snapshot.decodes == 1)
    }
}
