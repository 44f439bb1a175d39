import Foundation
import ImagoTestServer
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// nginx's `limit_rate`: a large image trickles in over seconds; it loads whole, in one
    /// request, with progress that only goes up.
    @Suite struct NginxRateLimitTests {
        static let image = "jpeg/baseline-420-q85-1600x1200.jpg"   // 355,912 bytes
        /// nginx lets the first second's worth go at once and then `rate` per second, so a body
        /// of more than twice the rate takes more than a second, whenever in the clock's second
        /// the request starts (about 2 s here).
        static let rate = 128 * 1024

        @Test(arguments: NginxCombination.all)
        func aRateLimitedImageLoadsWithMonotoneProgress(_ combination: NginxCombination) async throws {
            let size = TestCorpus.bytes(Self.image).count
            #expect(size > 2 * Self.rate, "the image must outlast nginx's first-second allowance")
            try await NginxFixture.with([.prefix("/slow/", .alias("files/"), .limitRate(bytesPerSecond: Self.rate))],
                                        files: ["files/\(Self.image)": TestCorpus.bytes(Self.image)]) { fixture in
                let progress = ProgressReports()
                let started = ContinuousClock.now
                let response = try await fixture.load(fixture.pipeline(combination), fixture.request("/slow/\(Self.image)", combination),
                                                      progress: progress).get()
                let elapsed = ContinuousClock.now - started
                try #expect(response.pixels == fixture.localPixels(Self.image), "\(combination)")
                #expect(elapsed > .seconds(1), "\(combination): nginx did throttle")
                let reports = progress.all
                #expect(reports.count > 2, "\(combination): progress while trickling")
                let received = reports.map(\.received)
                #expect(received == received.sorted(), "\(combination): progress never goes back")
                #expect(Set(received).count == received.count, "\(combination): each report adds bytes")
                #expect(received.last == size, "\(combination): the last report is the whole body")
                for report in reports {
                    #expect(report.expected == nil || report.expected == size, "\(combination): \(report)")
                }
                let log = try await fixture.logged(fixture.uri("/slow/\(Self.image)", combination), finalStatus: 200)
                #expect(log.count == 1, "\(combination): \(log)")
                #expect(log.first?.bodyBytesSent == size)
                print("NginxRateLimitTests \(combination): \(size) bytes in \(elapsed), \(reports.count) progress reports")
                await fixture.expectNoDownloadLeftovers(combination)
            }
        }
    }
}
