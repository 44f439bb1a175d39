import XCTest
@testable import ImagoBench

final class InterleavedSamplerTests: XCTestCase {
    /// Records the order the sampler calls its variants in; every sample "takes" 1 ms.
    private final class CallLog: @unchecked Sendable {
        var calls: [String] = []
    }

    func testVariantsAreSampledRoundRobinAfterWarmUp() {
        let log = CallLog()
        let plan = SamplingPlan(warmUp: 1, minSamples: 3, maxSamples: 3, minSeconds: 0)
        let results = InterleavedSampler(plan: plan).run([
            .init("a") { log.calls.append("a"); return 1 },
            .init("b") { log.calls.append("b"); return 2 },
        ])
        XCTAssertEqual(log.calls, ["a", "b", "a", "b", "a", "b", "a", "b"])
        XCTAssertEqual(try results["a"]?.get(), [1, 1, 1])
        XCTAssertEqual(try results["b"]?.get(), [2, 2, 2])
    }

    func testTimeFloorAddsRoundsUpToTheMaximum() {
        let plan = SamplingPlan(warmUp: 0, minSamples: 2, maxSamples: 10, minSeconds: 0.005)
        let results = InterleavedSampler(plan: plan).run([.init("a") { 1 }])
        XCTAssertEqual(try results["a"]?.get().count, 5)   // 5 × 1 ms reaches the 5 ms floor
    }

    func testAFailingVariantStopsAloneAndReportsItsError() {
        struct Boom: Error {}
        let plan = SamplingPlan(warmUp: 0, minSamples: 3, maxSamples: 3, minSeconds: 0)
        let results = InterleavedSampler(plan: plan).run([
            .init("ok") { 1 },
            .init("broken") { throw Boom() },
        ])
        XCTAssertEqual(try results["ok"]?.get(), [1, 1, 1])
        XCTAssertThrowsError(try results["broken"]?.get())
    }
}
