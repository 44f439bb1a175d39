import Foundation
import Synchronization
import XCTest
@testable import Imago
import ImagoTestServer

/// The decode stage's memory budget: estimates from headers, admission by bytes in priority
/// order, an oversized image alone, the refusal past the effective limit, the pressure hold.
final class DecodeBudgetTests: XCTestCase {
    /// An operation declaring `bytes` that is running once this returns and ends, with
    /// `result`, when the returned gate opens.
    private func hold(_ limiter: StageLimiter, bytes: Int, result: String = "held") async throws -> (Gate, Task<String?, Never>) {
        let release = Gate(), entered = Gate()
        let holder = Task {
            await limiter.run(priority: { .normal }, bytes: bytes) {
                entered.open()
                try? await release.waitUntilOpen(timeout: .seconds(30))
                return result
            }
        }
        try await entered.waitUntilOpen()
        return (release, holder)
    }

    private func estimate(_ file: String, _ options: DecodeOptions = DecodeOptions()) throws -> DecodeMemoryEstimate {
        try ImageDecoder.memoryEstimate(contentsOfFile: TestCorpus.url(file).path, options: options)
    }

    func testEstimatesChargeEachCodecsWorkingMemory() throws {
        let baseline = try estimate("jpeg/baseline-420-q85-1600x1200.jpg")
        XCTAssertEqual(baseline.outputBytes, DecodeMemoryEstimate.allocatedBytes(1600 * 1200 * 4))
        XCTAssertEqual(baseline.outputBytes % (2 << 20), 0, "a mapped buffer is charged in whole huge pages")
        XCTAssertEqual(baseline.workingBytes, 1600 * DecodeMemoryEstimate.rowBytesPerColumn, "single scan: rows only")

        let progressive = try estimate("jpeg/progressive-420-q90.jpg")
        let pixels = progressive.metadata.width * progressive.metadata.height
        // 4:2:0: luma 2 bytes per pixel plus two quarter-size chroma planes, in whole 8x8 blocks.
        XCTAssertGreaterThanOrEqual(progressive.workingBytes, pixels * 3)
        XCTAssertLessThan(progressive.workingBytes, pixels * 4 + progressive.metadata.width * 64)

        let lossless = try estimate("webp/lossless.webp")
        let losslessPixels = lossless.metadata.width * lossless.metadata.height
        XCTAssertGreaterThanOrEqual(lossless.workingBytes, losslessPixels * 4, "libwebp's own ARGB buffer")

        let interlaced = try estimate("png/rgba-8-interlaced.png")
        let small = try estimate("png/rgba-8-interlaced.png", DecodeOptions(maxPixelSize: 8))
        XCTAssertEqual(small.workingBytes - interlaced.workingBytes,
                       interlaced.metadata.width * interlaced.metadata.height * 4,
                       "an Adam7 image decoded smaller needs a full-size intermediate")

        let rotated = try estimate("jpeg/orientation-6.jpg", DecodeOptions(applyOrientation: true))
        let upright = try estimate("jpeg/orientation-6.jpg", DecodeOptions(applyOrientation: false))
        XCTAssertEqual(rotated.workingBytes - upright.workingBytes, rotated.outputBytes, "the rotated copy")
    }

    func testEstimateFailsLikeTheDecodeOnABadHeader() {
        XCTAssertThrowsError(try estimate("invalid/png-too-large-100000x100000.png")) { error in
            XCTAssertEqual((error as? DecodeError)?.kind, "tooLarge")
        }
        XCTAssertThrowsError(try ImageDecoder.memoryEstimate(Data("not an image".utf8))) { error in
            XCTAssertEqual((error as? DecodeError)?.kind, "unsupportedFormat")
        }
    }

    func testBytesAreAdmittedInPriorityOrderWithoutQueueJumping() async throws {
        // Sizes chosen so that the small one fits beside the holder but not beside the big one:
        // once admitted, the big one runs alone, so the bodies' order is the admission order
        // whatever the scheduler does (two bodies admitted together may start in either order).
        let limiter = StageLimiter(limit: 4, byteBudget: 100)
        let (release, holder) = try await hold(limiter, bytes: 50)
        let order = Mutex<[String]>([])
        let waitedForBytes = Mutex(0)
        let big = Task { @Sendable () async -> Void? in
            await limiter.run(priority: { .high }, bytes: 70, onWaitForBytes: { waitedForBytes.withLock { $0 += 1 } }) {
                order.withLock { $0.append("big") }
            }
        }
        try await waitFor { limiter.waitingCount == 1 }
        // Fits beside the holder, but must not jump the line.
        let small = Task { @Sendable () async -> Void? in
            await limiter.run(priority: { .low }, bytes: 40, onWaitForBytes: { waitedForBytes.withLock { $0 += 1 } }) {
                order.withLock { $0.append("small") }
            }
        }
        try await waitFor { limiter.waitingCount == 2 }
        XCTAssertEqual(limiter.waitingBytes, 110)
        XCTAssertEqual(limiter.runningBytes, 50)
        XCTAssertEqual(order.withLock { $0 }, [], "nothing ran past the budget or the order")
        XCTAssertEqual(waitedForBytes.withLock { $0 }, 2)
        release.open()
        _ = await holder.value
        _ = await big.value
        _ = await small.value
        XCTAssertEqual(order.withLock { $0 }, ["big", "small"])
        XCTAssertEqual(limiter.runningBytes, 0)
        XCTAssertEqual(limiter.admittedBytes, 160)
    }

    func testAnImageLargerThanTheBudgetRunsAloneAndNeverDeadlocks() async throws {
        let limiter = StageLimiter(limit: 4, byteBudget: 100)
        let (release, huge) = try await hold(limiter, bytes: 500, result: "huge")
        let tiny = Task { await limiter.run(priority: { .veryHigh }, bytes: 1) { "tiny" } }
        try await waitFor { limiter.waitingCount == 1 }
        XCTAssertEqual(limiter.runningCount, 1, "the oversized decode runs alone")
        release.open()
        let results = [await huge.value, await tiny.value]
        XCTAssertEqual(results, ["huge", "tiny"])
    }

    func testACancelledHeadOfTheLineLetsTheOthersThrough() async throws {
        let limiter = StageLimiter(limit: 4, byteBudget: 100)
        let (release, holder) = try await hold(limiter, bytes: 60)
        let blocked = Task { await limiter.run(priority: { .high }, bytes: 60) { "blocked" } }
        try await waitFor { limiter.waitingCount == 1 }
        let fits = Task { await limiter.run(priority: { .low }, bytes: 30) { "fits" } }
        try await waitFor { limiter.waitingCount == 2 }
        blocked.cancel()
        let admitted = await fits.value
        XCTAssertEqual(admitted, "fits", "admitted beside the holder once the head left")
        let cancelled = await blocked.value
        XCTAssertNil(cancelled)
        release.open()
        _ = await holder.value
    }

    func testAHoldQueuesNewDecodesUntilItEnds() async throws {
        let limiter = StageLimiter(limit: 4, byteBudget: 100)
        limiter.holdAdmissions(until: .now + .milliseconds(300))
        let held = Task { await limiter.run(priority: { .normal }, bytes: 10) { "ran" } }
        try await waitFor { limiter.waitingCount == 1 }
        let result = await held.value
        XCTAssertEqual(result, "ran", "admitted when the hold ended, with nothing else to wake it")
    }

    func testADecodeWaitsForLivePixelsToBeFreed() async throws {
        let roomForPixels = Mutex(false)
        let limiter = StageLimiter(limit: 4, byteBudget: .max, headroom: .init(
            allows: { _ in roomForPixels.withLock { $0 } }, makeRoom: { _ in }, maxWait: .seconds(60), pixels: .process))
        let waiting = Task { await limiter.run(priority: { .normal }, bytes: 10) { "decoded" } }
        try await waitFor { limiter.waitingCount == 1 }
        roomForPixels.withLock { $0 = true }
        _ = PixelBuffer(width: 1, height: 1, rgba: [0, 0, 0, 0])   // allocated and freed at once
        let result = await waiting.value
        XCTAssertEqual(result, "decoded", "a freed pixel buffer woke it")
    }

    func testPixelsTheAppKeepsDelayADecodeButNeverStopIt() async throws {
        let limiter = StageLimiter(limit: 4, byteBudget: .max, headroom: .init(allows: { _ in false }, makeRoom: { _ in }, maxWait: .milliseconds(20), pixels: .process))
        let started = ContinuousClock.now
        let result = await limiter.run(priority: { .normal }, bytes: 10) { "decoded" }
        XCTAssertEqual(result, "decoded")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(20), "it waited first")
    }

    func testPipelineRefusesADecodeLargerThanTheMemoryLimitBeforeAllocating() async throws {
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil)))
        let buffersBefore = PixelMemory.liveBufferCount
        // 1,000,000 x 1,000,000 (libpng's own ceiling): 4 TB of pixels, more than any host has.
        let huge = Self.png(resizing: TestCorpus.bytes("invalid/png-too-large-100000x100000.png"), toSide: 1_000_000)
        var request = ImageRequest(source: .data(huge, id: "huge"))
        request.options.pixelLimit = .max
        do {
            _ = try await pipeline.response(for: request)
            XCTFail("a 40 GB decode was admitted")
        } catch {
            guard case .decoding(.exceedsMemoryLimit(let required, let limit)) = error else {
                return XCTFail("expected exceedsMemoryLimit, got \(error)")
            }
            XCTAssertGreaterThanOrEqual(required, 1_000_000 * 1_000_000 * 4)
            XCTAssertEqual(limit, MemoryLimit.current.bytes)
        }
        XCTAssertEqual(PixelMemory.liveBufferCount, buffersBefore, "nothing was allocated")
        let counters = pipeline.counters.snapshot
        XCTAssertEqual(counters.decodesRefusedForMemory, 1)
        XCTAssertEqual(counters.decodes, 0)
    }

    func testADecodeThatFitsOnlyWithoutWhatTheProcessHoldsIsRefused() throws {
        let mib = 1 << 20
        // A 40 MP PNG (153 MiB of pixels) fetched as data (a 65 MiB body) under 192 MiB: was
        // admitted alone and OOM-killed; now refused with what it would really need.
        let refusal = try XCTUnwrap(DecodeStage.memoryRefusal(153 * mib, limit: 192 * mib, heldBesidesPixels: 90 * mib))
        guard case .exceedsMemoryLimit(let required, let limit) = refusal else { return XCTFail("\(refusal)") }
        XCTAssertEqual([required, limit], [(153 + 90 + 12) * mib, 192 * mib], "need, held, a sixteenth of the limit")
        // Streamed (no body kept) it fits; with nothing measured only the need counts.
        XCTAssertNil(DecodeStage.memoryRefusal(153 * mib, limit: 192 * mib, heldBesidesPixels: 25 * mib))
        XCTAssertNotNil(DecodeStage.memoryRefusal(153 * mib, limit: 192 * mib, heldBesidesPixels: 28 * mib))
        XCTAssertNil(DecodeStage.memoryRefusal(153 * mib, limit: 192 * mib, heldBesidesPixels: nil))
        XCTAssertNotNil(DecodeStage.memoryRefusal(193 * mib, limit: 192 * mib, heldBesidesPixels: nil))
        XCTAssertNil(DecodeStage.memoryRefusal(.max, limit: .max, heldBesidesPixels: .max), "saturates, never wraps")
        // The measurement itself: resident memory less pixel buffers, never negative.
        let held = try XCTUnwrap(ImagePipeline().decodeStage.nonPixelResidentBytes())
        XCTAssertGreaterThan(held, 0)
    }

    func testEstimatesSaturateInsteadOfWrapping() {
        XCTAssertEqual(DecodeMemoryEstimate.product(Int(Int32.max), Int(Int32.max), 4), .max)
        XCTAssertEqual(DecodeMemoryEstimate.sum(.max, 1), .max)
        XCTAssertEqual(DecodeMemoryEstimate.allocatedBytes(.max - 1), .max)
        XCTAssertEqual(DecodeMemoryEstimate.product(1000, 1000, 4), 4_000_000)
    }

    /// `png` with its IHDR width and height set to `side` (and the chunk's CRC recomputed).
    static func png(resizing png: [UInt8], toSide side: UInt32) -> Data {
        var bytes = png
        let sideBytes = withUnsafeBytes(of: side.bigEndian) { Array($0) }
        bytes.replaceSubrange(16..<20, with: sideBytes)
        bytes.replaceSubrange(20..<24, with: sideBytes)
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[12..<29] {   // chunk type and data
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        bytes.replaceSubrange(29..<33, with: withUnsafeBytes(of: (~crc).bigEndian) { Array($0) })
        return Data(bytes)
    }

    func testPipelineChargesTheHeadersEstimateAndGivesItBack() async throws {
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil)))
        let jpeg = Data(TestCorpus.bytes("jpeg/progressive-420-q90.jpg"))
        _ = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "charged")))
        XCTAssertEqual(pipeline.counters.snapshot.decodeBytesAdmitted, try ImageDecoder.memoryEstimate(jpeg).totalBytes)
        XCTAssertEqual(pipeline.decodeBytesInFlight, 0)
        XCTAssertEqual(pipeline.decodeBytesWaiting, 0)
    }
}
