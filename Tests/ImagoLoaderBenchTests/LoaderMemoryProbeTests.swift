import Foundation
import ImagoBench
@testable import ImagoLoaderBench
import ImagoTestServer
import ImagoTestSupport
import Testing

/// The loader bench's memory probes, run in fresh `imago` processes against a local server:
/// what a loader keeps is seen at its peak, and a child that cannot measure says why. The
/// checks are floors the pixels themselves set (3 decoded 640×480 images are 3 × 1,228,800
/// bytes), not timings, so they hold on a busy machine.
@Suite struct LoaderMemoryProbeTests {
    static let imageBytes = 640 * 480 * 4

    static func probe(_ subject: String, _ side: LoaderMemoryProbe.Side, _ urls: [URL]) -> LoaderMemoryProbe {
        LoaderMemoryProbe(subject: subject, side: side, urls: urls, concurrency: 3,
                          scratch: FileManager.default.temporaryDirectory.path, loadTimeoutSeconds: 60)
    }

    static func withImages(_ body: ([URL]) async throws -> Void) async throws {
        let server = try await TestServer.start()
        let images = try DistinctImages.make(count: 3, width: 640, height: 480, seed: 35)
        let urls = images.indices.map { index in
            server.setRoute("/probe/\(index).jpg", Route(body: images[index], contentType: "image/jpeg"))
            return server.url(for: "/probe/\(index).jpg")
        }
        do {
            try await body(urls)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    static let imago = BuiltProducts.executable(named: "imago").path
    static let arguments = ["bench", "--subject", "toy-reference"]

    @Test func aLoaderKeepingItsImagesPeaksAboveTheirPixelsAndTheControlAboveOne() async throws {
        try await Self.withImages { urls in
            // The toy loader keeps every image it loaded in its memory cache until it is released.
            let loader = try await Self.probe("toy-reference", .loader, urls).measure(executable: Self.imago,
                                                                                     arguments: Self.arguments)
            #expect(loader.peakGrowthBytes >= 3 * Self.imageBytes, "\(loader)")
            #expect(loader.imagesReleased, "\(loader)")
            let control = try await Self.probe("toy-reference", .control, urls).measure(executable: Self.imago,
                                                                                       arguments: Self.arguments)
            #expect(control.peakGrowthBytes >= Self.imageBytes, "\(control)")
            #expect(control.imagesReleased, "\(control)")
        }
    }

    @Test func aChildThatCannotMeasureSaysWhyInTheError() async throws {
        try await Self.withImages { urls in
            let error = await #expect(throws: LoaderBenchError.self) {
                try await Self.probe("no-such-loader", .loader, urls).measure(executable: Self.imago, arguments: Self.arguments)
            }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.hasPrefix("no-such-loader: measuring the loader's memory in a fresh process failed: ")
                    && message.contains("unknown subject no-such-loader"), "\(message)")
        }
    }
}
