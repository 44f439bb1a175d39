import Foundation
import XCTest
@testable import Imago

/// Nothing outlives its use: a pipeline, its memory cache and an image task (with the decoded
/// image it holds) are freed once the caller lets go. The benchmark's memory gate found every
/// pipeline that had loaded anything staying resident with its cache in the release build
/// (fixed in TaskPool by dropping a finished entry's task handle). The leak did not show in
/// debug builds, so these tests guard the property; the release-mode gate
/// (`make bench-check`, pipeline-batch held-after) is what catches that regression.
final class PipelineLifetimeTests: XCTestCase {
    private let jpeg = Data(TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg"))

    /// Waits (failure timeout 5 s) for `isReleased`; finishing tasks drop their last
    /// references a moment after their result is delivered.
    private func assertEventuallyReleased(_ what: String, _ isReleased: () -> Bool,
                                          file: StaticString = #filePath, line: UInt = #line) async {
        let deadline = ContinuousClock.now + .seconds(5)
        while !isReleased() && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        XCTAssertTrue(isReleased(), "\(what) is still alive", file: file, line: line)
    }

    func testPipelineAndItsMemoryCacheAreReleasedAfterLoads() async throws {
        weak var weakPipeline: ImagePipeline?
        weak var weakCache: MemoryCache<ImageRequestKey, DecodedImage>?
        do {
            let pipeline = ImagePipeline()
            weakPipeline = pipeline
            weakCache = pipeline.configuration.memoryCache
            for index in 0..<3 {
                _ = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "lifetime-\(index)")))
            }
        }
        await assertEventuallyReleased("the pipeline") { weakPipeline == nil }
        await assertEventuallyReleased("the memory cache") { weakCache == nil }
    }

    func testImageTaskIsReleasedWithItsResult() async throws {
        let pipeline = ImagePipeline(configuration: .init(memoryCache: nil))
        weak var weakTask: ImageTask?
        do {
            let task = pipeline.imageTask(for: ImageRequest(source: .data(jpeg, id: "lifetime-task")))
            weakTask = task
            _ = try await task.response
        }
        await assertEventuallyReleased("the image task") { weakTask == nil }
    }
}
