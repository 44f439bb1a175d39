import Foundation
import ImagoConformance
import ImagoTestServer
import Synchronization
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// nginx's error statuses and the retry policy: a 503 is retried per the back-off, a 503
    /// with `Retry-After: 1` after that second, a 503 asking for an hour and a 404 fail at once.
    /// The back-off runs on a manual clock, so nothing waits in real time; nginx's log counts
    /// requests.
    @Suite struct NginxStatusTests {
        static let image = "png/rgba-8.png"
        static let flag = "busy.flag"
        /// 250 ms, then 500 ms: the default policy's first two waits.
        static let policy = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(250), multiplier: 2, maxDelay: .seconds(4))

        private static let locations: [NginxLocation] = [
            .prefix("/down/", .status(503)),
            .prefix("/away/", .status(503), .header(name: "Retry-After", value: "3600")),
            // 503 with Retry-After: 1 while the docroot holds the flag, the image once it is gone.
            .prefix("/busy/", .alias("files/"),
                    .whileFileExists(flag, [.status(503), .header(name: "Retry-After", value: "1")])),
        ]

        /// nginx with the status locations and the image, for `body`.
        private func withNginx(_ body: (NginxFixture) async throws -> Void) async throws {
            try await NginxFixture.with(Self.locations, files: ["files/\(Self.image)": TestCorpus.bytes(Self.image)], body)
        }

        /// Starts the load in a task of its own (so the test can move the clock meanwhile).
        private func startLoad(_ pipeline: ImagePipeline, _ request: ImageRequest) -> Task<Result<ImageResponse, ImageLoadingError>, Never> {
            Task { await NginxFixture.load(pipeline, request) }
        }

        @Test(arguments: NginxCombination.all)
        func a503WithoutRetryAfterIsRetriedPerThePolicy(_ combination: NginxCombination) async throws {
            try await withNginx { fixture in
                let clock = ManualClock()
                let pipeline = fixture.pipeline(combination, retryPolicy: Self.policy, clock: clock)
                let uri = fixture.uri("/down/a.png", combination)
                let load = startLoad(pipeline, fixture.request("/down/a.png", combination))
                for (attempt, wait) in [(1, Duration.milliseconds(250)), (2, .milliseconds(500))] {
                    let backingOff = await fixture.waitForBackOff(clock)
                    #expect(backingOff, "\(combination): backing off after attempt \(attempt)")
                    let logged = try await fixture.logged(uri, atLeast: attempt)
                    #expect(logged.count == attempt, "\(combination): no retry before the wait is over")
                    clock.advance(by: wait - .milliseconds(1))
                    #expect(clock.sleeperCount == 1, "\(combination): \(wait) not over yet")
                    clock.advance(by: .milliseconds(1))
                }
                let result = await load.value
                #expect(result.failure == .fetch(.httpStatus(503)), "\(combination)")
                let log = try await fixture.logged(uri, atLeast: 3)
                #expect(log.map(\.status) == [503, 503, 503], "\(combination): the first try and two retries")
                #expect(pipeline.counters.snapshot.fetches == 3)
            }
        }

        @Test(arguments: NginxCombination.all)
        func a503WithRetryAfterOneSecondIsRetriedAfterThatSecond(_ combination: NginxCombination) async throws {
            try await withNginx { fixture in
                try fixture.nginx.writeFile(Self.flag, [])
                let clock = ManualClock()
                let pipeline = fixture.pipeline(combination, retryPolicy: Self.policy, clock: clock)
                let uri = fixture.uri("/busy/\(Self.image)", combination)
                let load = startLoad(pipeline, fixture.request("/busy/\(Self.image)", combination))
                let backingOff = await fixture.waitForBackOff(clock)
                #expect(backingOff, "\(combination): backing off after the 503")
                let first = try await fixture.logged(uri, atLeast: 1)
                #expect(first.map(\.status) == [503])
                clock.advance(by: .milliseconds(999))
                #expect(clock.sleeperCount == 1, "\(combination): the server asked for 1 s, longer than the 250 ms back-off")
                try fixture.nginx.removeFile(Self.flag)   // the server is back before the retry
                clock.advance(by: .milliseconds(1))
                let response = try await load.value.get()
                try #expect(response.pixels == fixture.localPixels(Self.image), "\(combination)")
                let log = try await fixture.logged(uri, finalStatus: 200)
                #expect(log.map(\.status) == [503, 200], "\(combination)")
                await fixture.expectNoDownloadLeftovers(combination)
            }
        }

        @Test(arguments: NginxCombination.all)
        func a503AskingForAnHourFailsAtOnceWithTheWait(_ combination: NginxCombination) async throws {
            try await withNginx { fixture in
                let clock = ManualClock()
                let pipeline = fixture.pipeline(combination, retryPolicy: Self.policy, clock: clock)
                let load = startLoad(pipeline, fixture.request("/away/a.png", combination))
                let finished = Latch()
                let watcher = Task {
                    _ = await load.value
                    finished.set()
                }
                // Either the load ends, or it starts waiting (an hour on this clock): never both.
                _ = await waitUntil { finished.isSet || clock.sleeperCount > 0 }
                #expect(clock.sleeperCount == 0, "\(combination): an hour is past maxRetryAfter, no wait")
                if clock.sleeperCount > 0 { load.cancel() }
                _ = await watcher.value
                let result = await load.value
                #expect(result.failure == .fetch(.httpStatus(503, retryAfter: .seconds(3600))), "\(combination)")
                let log = try await fixture.logged(fixture.uri("/away/a.png", combination), atLeast: 1)
                #expect(log.count == 1, "\(combination): \(log)")
                #expect(pipeline.counters.snapshot.fetches == 1)
            }
        }

        @Test(arguments: NginxCombination.all)
        func a404FailsOnce(_ combination: NginxCombination) async throws {
            try await withNginx { fixture in
                let pipeline = fixture.pipeline(combination)   // retries on: a 404 must not use them
                let result = await fixture.load(pipeline, fixture.request("/files/missing.png", combination))
                #expect(result.failure == .fetch(.httpStatus(404)), "\(combination)")
                let log = try await fixture.logged(fixture.uri("/files/missing.png", combination), finalStatus: 404)
                #expect(log.count == 1, "\(combination): \(log)")
                #expect(pipeline.counters.snapshot.fetches == 1)
                await fixture.expectNoDownloadLeftovers(combination)
            }
        }
    }
}
