import Foundation
import ImagoConformance
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// nginx's error statuses and the retry policy: a 503 is retried per the back-off, a 503 with
/// `Retry-After: 1` after that second, a 503 asking for an hour and a 404 fail at once. The
/// back-off runs on a manual clock, so nothing waits in real time; nginx's log counts requests.
final class NginxStatusTests: NginxTestCase {
    static let image = "png/rgba-8.png"
    static let flag = "busy.flag"
    /// 250 ms, then 500 ms: the default policy's first two waits.
    static let policy = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(250), multiplier: 2, maxDelay: .seconds(4))

    private let locations: [NginxLocation] = [
        .prefix("/down/", .status(503)),
        .prefix("/away/", .status(503), .header(name: "Retry-After", value: "3600")),
        // 503 with Retry-After: 1 while the docroot holds the flag, the image once it is gone.
        .prefix("/busy/", .alias("files/"),
                .whileFileExists(flag, [.status(503), .header(name: "Retry-After", value: "1")])),
    ]

    private func start() async throws {
        _ = try await startNginx(locations, files: ["files/\(Self.image)": TestCorpus.bytes(Self.image)])
    }

    /// Starts the load in a task of its own (so the test can move the clock meanwhile).
    private func startLoad(_ pipeline: ImagePipeline, _ request: ImageRequest) -> Task<Result<ImageResponse, ImageLoadingError>, Never> {
        Task { await NginxTestCase.load(pipeline, request) }
    }

    func testA503WithoutRetryAfterIsRetriedPerThePolicy() async throws {
        try await start()
        try await forEachCombination { combination in
            let clock = ManualClock()
            let pipeline = pipeline(combination, retryPolicy: Self.policy, clock: clock)
            let uri = uri("/down/a.png", combination)
            let load = startLoad(pipeline, request("/down/a.png", combination))
            for (attempt, wait) in [(1, Duration.milliseconds(250)), (2, .milliseconds(500))] {
                let backingOff = await waitForBackOff(clock)
                XCTAssertTrue(backingOff, "\(combination): backing off after attempt \(attempt)")
                let logged = try await logged(uri, atLeast: attempt)
                XCTAssertEqual(logged.count, attempt, "\(combination): no retry before the wait is over")
                clock.advance(by: wait - .milliseconds(1))
                XCTAssertEqual(clock.sleeperCount, 1, "\(combination): \(wait) not over yet")
                clock.advance(by: .milliseconds(1))
            }
            let result = await load.value
            XCTAssertEqual(result.failure, .fetch(.httpStatus(503)), "\(combination)")
            let log = try await logged(uri, atLeast: 3)
            XCTAssertEqual(log.map(\.status), [503, 503, 503], "\(combination): the first try and two retries")
            XCTAssertEqual(pipeline.counters.snapshot.fetches, 3)
        }
    }

    func testA503WithRetryAfterOneSecondIsRetriedAfterThatSecond() async throws {
        try await start()
        try await forEachCombination { combination in
            try nginx.writeFile(Self.flag, [])
            let clock = ManualClock()
            let pipeline = pipeline(combination, retryPolicy: Self.policy, clock: clock)
            let uri = uri("/busy/\(Self.image)", combination)
            let load = startLoad(pipeline, request("/busy/\(Self.image)", combination))
            let backingOff = await waitForBackOff(clock)
            XCTAssertTrue(backingOff, "\(combination): backing off after the 503")
            let first = try await logged(uri, atLeast: 1)
            XCTAssertEqual(first.map(\.status), [503])
            clock.advance(by: .milliseconds(999))
            XCTAssertEqual(clock.sleeperCount, 1, "\(combination): the server asked for 1 s, longer than the 250 ms back-off")
            try nginx.removeFile(Self.flag)   // the server is back before the retry
            clock.advance(by: .milliseconds(1))
            let response = try await load.value.get()
            XCTAssertEqual(response.pixels, try localPixels(Self.image), "\(combination)")
            let log = try await logged(uri, finalStatus: 200)
            XCTAssertEqual(log.map(\.status), [503, 200], "\(combination)")
            await assertNoDownloadLeftovers(combination)
        }
    }

    func testA503AskingForAnHourFailsAtOnceWithTheWait() async throws {
        try await start()
        try await forEachCombination { combination in
            let clock = ManualClock()
            let pipeline = pipeline(combination, retryPolicy: Self.policy, clock: clock)
            let load = startLoad(pipeline, request("/away/a.png", combination))
            let finished = Latch()
            let watcher = Task {
                _ = await load.value
                finished.set()
            }
            // Either the load ends, or it starts waiting (an hour on this clock): never both.
            _ = await waitUntil { finished.isSet || clock.sleeperCount > 0 }
            XCTAssertEqual(clock.sleeperCount, 0, "\(combination): an hour is past maxRetryAfter, no wait")
            if clock.sleeperCount > 0 { load.cancel() }
            _ = await watcher.value
            let result = await load.value
            XCTAssertEqual(result.failure, .fetch(.httpStatus(503, retryAfter: .seconds(3600))), "\(combination)")
            let log = try await logged(uri("/away/a.png", combination), atLeast: 1)
            XCTAssertEqual(log.count, 1, "\(combination): \(log)")
            XCTAssertEqual(pipeline.counters.snapshot.fetches, 1)
        }
    }

    func testA404FailsOnce() async throws {
        try await start()
        try await forEachCombination { combination in
            let pipeline = pipeline(combination)   // retries on: a 404 must not use them
            let result = await load(pipeline, request("/files/missing.png", combination))
            XCTAssertEqual(result.failure, .fetch(.httpStatus(404)), "\(combination)")
            let log = try await logged(uri("/files/missing.png", combination), finalStatus: 404)
            XCTAssertEqual(log.count, 1, "\(combination): \(log)")
            XCTAssertEqual(pipeline.counters.snapshot.fetches, 1)
            await assertNoDownloadLeftovers(combination)
        }
    }
}
