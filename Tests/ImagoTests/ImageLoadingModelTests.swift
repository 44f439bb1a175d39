import Foundation
import ImagoConformance
import ImagoTestServer
import XCTest
@testable import Imago

/// Phase sequences of the view model for the INIT, TRANS, CACHE, SOURCE, SHARE and RETRY rules.
@MainActor
final class ImageLoadingModelTests: XCTestCase {
    private var server: TestServer!
    private var pipeline: ImagePipeline!
    private let png = TestCorpus.bytes("png/rgb-8.png")
    private let jpeg = TestCorpus.bytes("jpeg/baseline-420-q90.jpg")

    override func setUp() async throws {
        server = try await TestServer.start()
        server.setRoute("/a.png", Route(body: png))
        server.setRoute("/b.jpg", Route(body: jpeg))
        pipeline = ImagePipeline(configuration: .init(network: .init(retryPolicy: .none)))
    }

    override func tearDown() async throws { try await server.shutdown() }

    private func model(_ path: String?) -> ImageLoadingModel {
        ImageLoadingModel(pipeline: pipeline, source: path.map { .url(server.url(for: $0)) })
    }

    /// Collects every published phase name.
    private final class Recorder {
        var names: [String] = []
        var phases: [ImagePhase] = []
    }

    private func record(_ model: ImageLoadingModel) -> Recorder {
        let recorder = Recorder()
        let stream = model.phases
        Task { @MainActor in
            for await phase in stream {
                recorder.names.append(phase.name)
                recorder.phases.append(phase)
            }
        }
        return recorder
    }

    /// Waits until `condition` holds; the deadline only turns a hang into a failure.
    private func eventually(_ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) async {
        let held = await waitUntil(condition)
        XCTAssertTrue(held, "condition never held", file: file, line: line)
    }

    func testLazyStartLoadingBeforeReturnThenSuccess() async throws {
        let model = model("/a.png")
        XCTAssertEqual(model.phase.name, "empty")
        let recorder = record(model)
        await eventually { recorder.names == ["empty"] }
        XCTAssertEqual(server.counters.totalRequests, 0, "no request before load() (INIT-1)")
        model.load()
        XCTAssertEqual(model.phase.name, "loading", "loading published before load() returns (INIT-3)")
        await eventually { model.phase.isTerminal }
        guard case .success(let response) = model.phase else { return XCTFail("\(model.phase)") }
        XCTAssertEqual(response.origin, .network)
        await eventually { recorder.names.last == "success" }
        XCTAssertEqual(recorder.names.first, "empty")
        XCTAssertEqual(recorder.names.filter { $0 == "success" }.count, 1)
        XCTAssertTrue(recorder.names.dropFirst().dropLast().allSatisfy { $0 == "loading" })
    }

    func testMissingSourceFailsSynchronouslyOrStaysEmptyWhenDeclared() {
        let failing = model(nil)
        failing.load()
        guard case .failure(.missingSource) = failing.phase else { return XCTFail("\(failing.phase)") }
        let compatible = ImageLoadingModel(pipeline: pipeline, request: nil, missingSourceBehavior: .stayEmpty)
        compatible.load()
        XCTAssertEqual(compatible.phase.name, "empty")
    }

    func testMemoryHitPublishesExactlyOneSuccessSynchronously() async throws {
        let first = model("/a.png")
        first.load()
        await eventually { first.phase.isTerminal }
        let second = model("/a.png")
        let recorder = record(second)
        await eventually { recorder.names == ["empty"] }
        second.load()
        guard case .success(let response) = second.phase else { return XCTFail("no synchronous hit: \(second.phase)") }
        XCTAssertEqual(response.origin, .memory)
        await eventually { recorder.names.count == 2 }
        XCTAssertEqual(recorder.names, ["empty", "success"], "no loading flash (CACHE-1)")
        XCTAssertEqual(server.counters.requests(for: "/a.png"), 1)
    }

    func testSecondLoadOfTheSameKeyIsIgnored() async throws {
        let model = model("/a.png")
        model.load()
        model.load()
        await eventually { model.phase.isTerminal }
        model.load()
        XCTAssertEqual(server.counters.requests(for: "/a.png"), 1, "SHARE-1")
    }

    func testCancelIsSilentNeverAFailureAndReloadWorks() async throws {
        let gate = Gate()
        server.setRoute("/held.png", Route(body: png, faults: Faults(gate: gate)))
        let model = model("/held.png")
        let recorder = record(model)
        model.load()
        try await gate.waitUntilHeld()
        model.cancel()
        XCTAssertEqual(model.phase.name, "empty", "TRANS-4")
        gate.open()
        try await server.counters.waitUntil { $0.requests(for: "/held.png") == 1 }
        for _ in 0..<50 { await Task.yield() }
        XCTAssertFalse(recorder.names.contains("success") || recorder.names.contains("failure"), "TRANS-3: \(recorder.names)")
        model.load()   // TRANS-5
        await eventually { model.phase.isTerminal }
        XCTAssertEqual(model.phase.name, "success")
    }

    func testDisappearCancelsOrLowersPriorityAsDeclared() async throws {
        let gate = Gate()
        server.setRoute("/away.png", Route(body: png, faults: Faults(gate: gate)))
        let cancelling = model("/away.png")
        cancelling.onAppear()
        try await gate.waitUntilHeld()
        cancelling.onDisappear()
        XCTAssertEqual(cancelling.phase.name, "empty", "default: disappear cancels, silently")

        let lowering = model("/away.png")
        lowering.disappearBehavior = .lowerPriority
        lowering.onAppear()
        try await server.counters.waitUntil { $0.requests(for: "/away.png") == 2 }
        lowering.onDisappear()
        XCTAssertEqual(lowering.phase.name, "loading", "kept running at low priority")
        lowering.onAppear()
        XCTAssertEqual(server.counters.requests(for: "/away.png"), 2, "appearing again joins the running load")
        gate.open()
        await eventually { lowering.phase.isTerminal }
        XCTAssertEqual(lowering.phase.name, "success")
        XCTAssertEqual(cancelling.phase.name, "empty")
    }

    func testAModelThatGoesAwayLeavesItsLoad() async throws {
        let stall = Gate()
        server.setRoute("/abandoned.jpg", Route(body: jpeg, faults: Faults(stallAfterBytes: 100, gate: stall)))
        let closedBefore = server.counters.connectionsClosedByClient
        var model: ImageLoadingModel? = self.model("/abandoned.jpg")
        model?.load()
        try await server.counters.waitUntil { $0.bodyBytesSent(for: "/abandoned.jpg") >= 100 }
        model = nil
        try await server.counters.waitUntil { $0.connectionsClosedByClient > closedBefore }
        stall.open()
    }

    func testSourceChangeNeverShowsTheOldImageAsSuccess() async throws {
        let gate = Gate()
        server.setRoute("/slow.png", Route(body: png, faults: Faults(gate: gate)))
        let model = model("/b.jpg")
        model.load()
        await eventually { model.phase.isTerminal }
        guard case .success(let original) = model.phase else { return XCTFail("\(model.phase)") }
        let recorder = record(model)
        model.setSource(.url(server.url(for: "/slow.png")))
        XCTAssertEqual(model.phase.name, "empty")
        model.load()
        guard case .loading(_, let previous, _) = model.phase else { return XCTFail("\(model.phase)") }
        XCTAssertNotNil(previous, "the old image may appear only as `previous` (SOURCE-2)")
        try await gate.waitUntilHeld()
        model.setSource(.url(server.url(for: "/b.jpg")))
        model.load()   // B is a memory hit now
        guard case .success(let response) = model.phase else { return XCTFail("\(model.phase)") }
        XCTAssertEqual(response.pixels, original.pixels)
        gate.open()
        try await server.counters.waitUntil { $0.requests(for: "/slow.png") == 1 }
        for _ in 0..<50 { await Task.yield() }
        guard case .success(let still) = model.phase else { return XCTFail("\(model.phase)") }
        XCTAssertEqual(still.pixels, response.pixels, "nothing of the superseded source (SOURCE-1)")
        XCTAssertEqual(recorder.names.filter { $0 == "success" }.count, 2, "\(recorder.names)")
    }

    func testFailureThenRetryIsANewAttempt() async throws {
        let model = model("/missing.png")
        model.load()
        await eventually { model.phase.isTerminal }
        guard case .failure(.fetch(.httpStatus(404, _, _))) = model.phase else { return XCTFail("\(model.phase)") }
        server.setRoute("/missing.png", Route(body: png))
        model.retry()
        XCTAssertEqual(model.phase.name, "loading", "RETRY-3")
        await eventually { model.phase.isTerminal }
        XCTAssertEqual(model.phase.name, "success")
        XCTAssertEqual(server.counters.requests(for: "/missing.png"), 2)
    }

    func testAsyncImageViewFoldsLoadingIntoEmpty() {
        let loading = ImagePhase.loading(progress: nil, previous: nil)
        guard case .empty = loading.asyncImagePhase else { return XCTFail() }
    }
}
