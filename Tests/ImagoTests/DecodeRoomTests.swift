import Synchronization
import ImagoConformance
import Testing
@testable import Imago

/// A decode short of memory gets the room the pipeline keeps only for speed (the memory cache
/// and the pixel pool) before it waits, and again once admitted: decodes that ended while it
/// waited fill both again. The pressure bench's OOM kill at 256 MiB came from a 40 MP decode
/// admitted beside a full cache and pool that had refilled while it waited.
@Suite struct DecodeRoomTests {
    /// A memory cache that records its trims (its cost goes down to the target).
    final class RecordingCache: ImageMemoryCaching {
        let state: Mutex<(cost: Int, trims: [Int])>
        init(cost: Int) { state = Mutex((cost, [])) }
        func value(forKey key: ImageRequestKey) -> DecodedImage? { nil }
        func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool { false }
        func trim(toCost cost: Int) { state.withLock { $0.trims.append(cost); $0.cost = min($0.cost, cost) } }
        var totalCost: Int { state.withLock { $0.cost } }
        var trims: [Int] { state.withLock { $0.trims } }
    }

    /// Pixel memory with fixed live bytes and a pool that empties when trimmed.
    final class FakePixels: Sendable {
        let pooled: Mutex<Int>
        let trims = Mutex(0)
        let live: Int
        init(live: Int, pooled: Int) { self.live = live; self.pooled = Mutex(pooled) }
        var gauge: PixelMemoryGauge {
            PixelMemoryGauge(liveBytes: { self.live }, retainedBytes: { self.pooled.withLock { $0 } },
                             trim: { self.pooled.withLock { $0 = 0 }; self.trims.withLock { $0 += 1 } })
        }
    }

    private let diagnostics = PipelineDiagnostics(counters: PipelineCounters(), configuration: .init())

    // A fixed limit of 3,000 bytes: the live pixel ceiling is 2,000.

    @Test func aDecodeThatFitsTakesNothing() {
        let pixels = FakePixels(live: 1_000, pooled: 300), cache = RecordingCache(cost: 500)
        DecodeStage.makeRoom(for: 700, .fixedLimit(3_000, pixels: pixels.gauge), cache: cache, diagnostics: diagnostics)
        #expect(cache.trims.isEmpty)
        #expect(pixels.trims.withLock { $0 } == 0)
        #expect(pixels.pooled.withLock { $0 } == 300)
    }

    @Test func thePoolGivesFirstAndTheCacheOnlyWhatThePoolCannot() {
        let pixels = FakePixels(live: 1_500, pooled: 300), cache = RecordingCache(cost: 800)
        // 1,500 + 300 + 400 = 2,200: 200 short, which the pool's 300 covers.
        DecodeStage.makeRoom(for: 400, .fixedLimit(3_000, pixels: pixels.gauge), cache: cache, diagnostics: diagnostics)
        #expect(cache.trims.isEmpty)
        #expect(pixels.pooled.withLock { $0 } == 0)

        let morePixels = FakePixels(live: 1_500, pooled: 300)
        // 1,500 + 300 + 700 = 2,500: 500 short; the pool gives 300, the cache the other 200.
        DecodeStage.makeRoom(for: 700, .fixedLimit(3_000, pixels: morePixels.gauge), cache: cache, diagnostics: diagnostics)
        #expect(cache.trims == [600])
        #expect(morePixels.pooled.withLock { $0 } == 0, "emptied after the cache, which pools what it frees")
    }

    @Test(.timeLimit(.minutes(1))) func aWaiterBlockedByPixelMemoryGetsTheRoomBeforeItWaits() async {
        let room = Mutex((made: false, calls: [Int]()))
        let limiter = StageLimiter(limit: 4, byteBudget: .max, headroom: .init(
            allows: { _ in room.withLock { $0.made } },
            makeRoom: { bytes in room.withLock { $0.made = true; $0.calls.append(bytes) } },
            // Only the room made can admit it in time: the wait would run out in an hour.
            maxWait: .seconds(3_600), pixels: .init(liveBytes: { 0 })))
        let result = await limiter.run(priority: { .normal }, bytes: 10) { "decoded" }
        #expect(result == "decoded")
        #expect(room.withLock { $0.calls } == [10], "room was made once, for the waiter's bytes")
    }

    @Test(.timeLimit(.minutes(1))) func aWaiterThatWouldPassTheLimitOutwaitsTheLivePixelWait() async {
        let full = Mutex(true)
        let limiter = StageLimiter(limit: 4, byteBudget: .max, headroom: .init(
            allows: { _ in !full.withLock { $0 } },
            wouldPassLimit: { _ in full.withLock { $0 } },
            makeRoom: { _ in },
            // The live-pixel wait is over at once; only the limit keeps it waiting (for an hour).
            maxWait: .zero, limitWait: .seconds(3_600), pixels: .process))
        let waiting = Task { await limiter.run(priority: { .normal }, bytes: 10) { "decoded" } }
        #expect(await waitUntil(timeout: .seconds(50)) { limiter.waitingCount == 1 }, "it queued instead of starting")
        #expect(limiter.runningCount == 0)
        full.withLock { $0 = false }
        _ = PixelBuffer(width: 1, height: 1, rgba: [0, 0, 0, 0])   // a freed buffer wakes it
        #expect(await waiting.value == "decoded")
    }
}
