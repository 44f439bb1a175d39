import ImagoConformance
import ImagoConformanceSubjects
import ImagoConformanceXCTest
import XCTest

/// Every rule against every Imago configuration: {data task, download-to-file, decode while
/// streaming} × {no cache, memory only, disk only, memory + disk}. Each must pass every rule that
/// applies.
@MainActor
final class ImagoConformanceTests: XCTestCase {
    private func check(_ strategy: LoaderContext.FetchStrategy, _ caches: ImagoSubjects.Caches) async throws {
        let report = try await assertConforms(ImagoSubjects.subject(strategy: strategy, caches: caches))
        let notApplicable = report.results.filter { $0.status == .notApplicable }
        for result in notApplicable {
            XCTAssertTrue(result.evidence.hasPrefix("requires"), "\(result.rule) n/a without a missing capability")
        }
    }

    func testDataTaskNoCache() async throws { try await check(.data, .none) }
    func testDataTaskMemoryCache() async throws { try await check(.data, .memory) }
    func testDataTaskDiskCache() async throws { try await check(.data, .disk) }
    func testDataTaskMemoryAndDiskCache() async throws { try await check(.data, .memoryAndDisk) }
    func testDownloadToFileNoCache() async throws { try await check(.file, .none) }
    func testDownloadToFileMemoryCache() async throws { try await check(.file, .memory) }
    func testDownloadToFileDiskCache() async throws { try await check(.file, .disk) }
    func testDownloadToFileMemoryAndDiskCache() async throws { try await check(.file, .memoryAndDisk) }
    func testStreamingNoCache() async throws { try await check(.stream, .none) }
    func testStreamingMemoryCache() async throws { try await check(.stream, .memory) }
    func testStreamingDiskCache() async throws { try await check(.stream, .disk) }
    func testStreamingMemoryAndDiskCache() async throws { try await check(.stream, .memoryAndDisk) }
}
