import Foundation
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// nginx's `limit_rate`: a large image trickles in over seconds; it loads whole, in one request,
/// with progress that only goes up.
final class NginxRateLimitTests: NginxTestCase {
    static let image = "jpeg/baseline-420-q85-1600x1200.jpg"   // 355,912 bytes
    /// nginx lets the first second's worth go at once and then `rate` per second, so a body of
    /// more than twice the rate takes more than a second, whenever in the clock's second the
    /// request starts (about 2 s here).
    static let rate = 128 * 1024

    func testARateLimitedImageLoadsWithMonotoneProgress() async throws {
        let size = TestCorpus.bytes(Self.image).count
        XCTAssertGreaterThan(size, 2 * Self.rate, "the image must outlast nginx's first-second allowance")
        _ = try await startNginx([.prefix("/slow/", .alias("files/"), .limitRate(bytesPerSecond: Self.rate))],
                                 files: ["files/\(Self.image)": TestCorpus.bytes(Self.image)])
        try await forEachCombination { combination in
            let progress = ProgressReports()
            let started = ContinuousClock.now
            let response = try await load(pipeline(combination), request("/slow/\(Self.image)", combination),
                                          progress: progress).get()
            let elapsed = ContinuousClock.now - started
            XCTAssertEqual(response.pixels, try localPixels(Self.image), "\(combination)")
            XCTAssertGreaterThan(elapsed, .seconds(1), "\(combination): nginx did throttle")
            let reports = progress.all
            XCTAssertGreaterThan(reports.count, 2, "\(combination): progress while trickling")
            let received = reports.map(\.received)
            XCTAssertEqual(received, received.sorted(), "\(combination): progress never goes back")
            XCTAssertEqual(Set(received).count, received.count, "\(combination): each report adds bytes")
            XCTAssertEqual(received.last, size, "\(combination): the last report is the whole body")
            for report in reports {
                XCTAssertTrue(report.expected == nil || report.expected == size, "\(combination): \(report)")
            }
            let log = try await logged(uri("/slow/\(Self.image)", combination), finalStatus: 200)
            XCTAssertEqual(log.count, 1, "\(combination): \(log)")
            XCTAssertEqual(log.first?.bodyBytesSent, size)
            print("\(name) \(combination): \(size) bytes in \(elapsed), \(reports.count) progress reports")
            await assertNoDownloadLeftovers(combination)
        }
    }
}
