import BlogAdapter
import ImagoConformance
import ImagoConformanceXCTest
import XCTest

@MainActor
final class BlogLoaderConformanceTests: XCTestCase {
    func testBlogLoaderConforms() async throws {
        try await assertConforms(ConformanceSubject(name: "blog-loader", capabilities: [.memoryCache, .diskCache, .targetSize],
                                                    expectedToFail: ExpectedScore.knownFailures.map(\.rule)) { context in
            try BlogLoaderAdapter(context: context)
        }, runner: ConformanceRunner(seed: 2024))   // as blog-conformance: one verdict in every CI run
    }
}
