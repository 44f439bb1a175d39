import Foundation
import ImagoTestSupport
import Testing
@testable import ImagoBench

/// `imago-bench-count` is a program of its own and spells the decoder names again: it must take
/// exactly those of ``CountedDecoder``. Each decodes a corpus file (outside valgrind, where the
/// counted C function just calls its body) and exits 0; any other name is a usage error.
@Suite struct CountingChildTests {
    static let child = BuiltProducts.executable(named: InstructionCounter.childName)
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpus/png/rgb-8-160x120.png").path

    @Test(arguments: CountedDecoder.allCases)
    func theChildDecodesWithEveryCountedDecoder(_ decoder: CountedDecoder) async throws {
        let run = try await ChildProcessRunner.run(Self.child, [Self.file, decoder.rawValue, "2"])
        #expect(run.status == 0, "\(decoder.rawValue): \(run.stderr)")
    }

    @Test func anyOtherNameIsAUsageError() async throws {
        let run = try await ChildProcessRunner.run(Self.child, [Self.file, "pillow", "1"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("error: usage: imago-bench-count FILE imago|c-direct DECODES"), "\(run.stderr)")
    }
}
