import Foundation
@testable import ImagoBench
import ImagoTestSupport
import Testing

/// valgrind's counter and a C compiler, when both are on PATH.
enum CountingTools {
    static let found: (InstructionCounter, String)? = {
        guard case .success(let counter) = InstructionCounter.locate() else { return nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let compiler = path.split(separator: ":").flatMap { ["\($0)/cc", "\($0)/gcc"] }
            .first(where: FileManager.default.isExecutableFile(atPath:))
        return compiler.map { (counter, $0) }
    }()
}

/// The instruction counter against a program whose work is known: a tiny C program (compiled
/// here with the system's cc) calls a function named like the counted region with a loop of N
/// iterations, so a run with 10% more iterations must count about 10% more instructions, and
/// two runs of one program the same count. This is the planted-slowdown check in miniature,
/// with the machine's noise left out by construction.
@Suite(.enabled(if: CountingTools.found != nil, "valgrind or cc is not installed (make deps installs both)"))
struct InstructionCounterTests {

    /// The program: `work N CALLS` calls the counted region CALLS times, each summing N numbers.
    static let source = """
        #include <stdlib.h>
        static volatile long sink;
        static void body(void *context) { long n = *(long *)context; for (long i = 0; i < n; i++) sink += i; }
        __attribute__((noinline)) void \(InstructionCounter.functionName)(void (*b)(void *), void *c) { b(c); __asm__ volatile("" ::: "memory"); }
        int main(int argc, char **argv) {
            long n = atol(argv[1]); int calls = atoi(argv[2]);
            for (int k = 0; k < calls; k++) \(InstructionCounter.functionName)(body, &n);
            return 0;
        }
        """

    /// The compiled program, in a directory removed when the value goes.
    final class Program: Sendable {
        let directory: URL
        let executable: String

        private init(directory: URL) {
            self.directory = directory
            executable = directory.appendingPathComponent("work").path
        }

        /// Compiles ``InstructionCounterTests/source`` with `compiler`.
        static func compile(with compiler: String) async throws -> Program {
            let program = Program(directory: FileManager.default.temporaryDirectory
                .appendingPathComponent("imago-counter-\(UUID().uuidString)"))
            try FileManager.default.createDirectory(at: program.directory, withIntermediateDirectories: true)
            let source = program.directory.appendingPathComponent("work.c")
            try InstructionCounterTests.source.write(to: source, atomically: true, encoding: .utf8)
            let compiled = try await ChildProcessRunner.run(URL(fileURLWithPath: compiler),
                                                            ["-O1", "-o", program.executable, source.path])
            try #require(compiled.status == 0, "\(compiler) failed: \(compiled.stderr)")
            return program
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    // Each count waits for valgrind, so it runs on a thread of its own (`onOwnThread`), not on
    // one of the cooperative pool's that the other tests share.

    @Test func eachCallIsOneSampleAndRepeats() async throws {
        let (counter, compiler) = try #require(CountingTools.found)
        let program = try await Program.compile(with: compiler)
        let first = try await onOwnThread { try counter.count(executable: program.executable, arguments: ["100000", "5"]) }
        let second = try await onOwnThread { try counter.count(executable: program.executable, arguments: ["100000", "5"]) }
        #expect(first.count == 5)
        #expect(Set(first).count == 1, "every call does the same work: \(first)")
        #expect(first == second, "two runs of one program count alike")
        #expect(first[0] > 100_000, "at least one instruction per iteration: \(first[0])")
    }

    @Test func tenPercentMoreWorkCountsTenPercentMore() async throws {
        let (counter, compiler) = try #require(CountingTools.found)
        let program = try await Program.compile(with: compiler)
        let base = try await onOwnThread { try counter.count(executable: program.executable, arguments: ["100000", "5"]) }
        let slower = try await onOwnThread { try counter.count(executable: program.executable, arguments: ["110000", "5"]) }
        let ratio = slower[0] / base[0]
        #expect(abs(ratio - 1.1) < 0.005, "10% more iterations: \(ratio)")
    }

    @Test func aFailingChildIsAReadableError() async throws {
        let (counter, _) = try #require(CountingTools.found)
        let outcome = await onOwnThread { Result { try counter.count(executable: "/bin/false", arguments: []) } }
        #expect(Self.message(outcome)?.contains("under callgrind failed") == true, "\(outcome)")
    }

    @Test func aChildWithoutCountedCallsSaysSo() async throws {
        let (counter, _) = try #require(CountingTools.found)
        let outcome = await onOwnThread { Result { try counter.count(executable: "/bin/true", arguments: []) } }
        #expect(Self.message(outcome)?.contains("saw no call of \(InstructionCounter.functionName)") == true, "\(outcome)")
    }

    /// The description of the `BenchError` a count failed with; nil for a success or another error.
    private static func message(_ outcome: Result<[Double], any Error>) -> String? {
        guard case .failure(let error as BenchError) = outcome else { return nil }
        return error.description
    }
}

@Test func noValgrindOnPathIsAReason() {
    guard case .failure(let unavailable) = InstructionCounter.locate(path: "/nonexistent") else {
        Issue.record("found a valgrind in /nonexistent")
        return
    }
    #expect(unavailable.reason.hasPrefix("valgrind not installed"))
}

@Test func aDumpsTotalIsItsInstructions() {
    let dump = "# callgrind format\nversion: 1\ncmd: work\nevents: Ir\nsummary: 600007\nfl=(1) work.c\n0 3\ntotals: 600007\n"
    #expect(InstructionCounter.total(ofDump: dump) == 600_007)
    #expect(InstructionCounter.total(ofDump: "summary: 12\n") == 12)
    #expect(InstructionCounter.total(ofDump: "events: Ir\n") == nil)
}
