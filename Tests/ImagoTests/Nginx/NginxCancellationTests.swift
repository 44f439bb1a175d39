import Foundation
import ImagoConformance
import ImagoTestServer
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// Cancelling a load mid-body: a large image trickles from nginx (`limit_rate`, about 11 s
    /// for the whole body); the load is cancelled once bytes arrive. It ends at once with
    /// cancellation, nginx records a request that ended early, and no download temporary is left.
    @Suite struct NginxCancellationTests {
        static let image = "jpeg/baseline-420-q85-1600x1200.jpg"   // 355,912 bytes
        static let rate = 32 * 1024

        @Test(arguments: NginxCombination.all)
        func cancellingMidBodyEndsPromptlyAndLeavesNothing(_ combination: NginxCombination) async throws {
            let size = TestCorpus.bytes(Self.image).count
            try await NginxFixture.with([.prefix("/trickle/", .alias("files/"), .limitRate(bytesPerSecond: Self.rate))],
                                        files: ["files/\(Self.image)": TestCorpus.bytes(Self.image)]) { fixture in
                let progress = ProgressReports()
                let pipeline = fixture.pipeline(combination)
                let request = fixture.request("/trickle/\(Self.image)", combination)
                let load = Task { await NginxFixture.load(pipeline, request, progress: progress) }
                let midBody = await waitUntil { !progress.all.isEmpty }
                #expect(midBody, "\(combination): bytes arrived")
                let receivedBeforeCancel = progress.all.last?.received ?? 0
                #expect(receivedBeforeCancel < size, "\(combination): cancelled mid-body")
                if combination.strategy == .file {
                    #expect(fixture.downloadLeftovers().count == 1, "\(combination): the body is streaming to its temporary")
                }
                let cancelled = ContinuousClock.now
                load.cancel()
                let result = await load.value
                let latency = ContinuousClock.now - cancelled
                #expect(result.failure?.isCancellation == true, "\(combination): \(result)")
                #expect(latency < .seconds(1), "\(combination): the load ends at once, not with the body")
                #expect(pipeline.counters.snapshot.fetches == 1, "\(combination): a cancel is not retried")
                // nginx sees the close at its next write (limit_rate sends once a second) and logs
                // the request as incomplete, short of the file.
                let uri = fixture.uri("/trickle/\(Self.image)", combination)
                let log = try await fixture.nginx.waitForAccessLog("\(combination) cancelled request") { entries in
                    entries.contains { $0.requestURI == uri }
                }.filter { $0.requestURI == uri }
                #expect(log.count == 1, "\(combination): \(log)")
                if let entry = log.first {
                    #expect(entry.status == 499 || (!entry.completed && entry.bodyBytesSent < size), "\(combination): \(entry)")
                }
                print("NginxCancellationTests \(combination): cancelled after \(receivedBeforeCancel) bytes, ended in \(latency); nginx logged \(log)")
                await fixture.expectNoDownloadLeftovers(combination)
            }
        }
    }
}
