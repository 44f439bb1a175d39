import Foundation
import ImagoTestSupport
import Testing

/// `imago bench compare BASE NEW`: the exit statuses 0 / 2 / 4 of bench-check, the reports it
/// writes, and one line on standard error for a run it cannot use. Runs the built executable on
/// run directories written here as `imago bench` writes them.
@Suite struct BenchCompareCommandTests {
    /// A decode time around 100 ms, 8 samples, and a row skipped in every run.
    private static let samples: [Double] = [100, 101.5, 99, 100.5, 102, 98.5, 100, 99.5]

    /// A temporary directory holding run directories; removed by `remove()`.
    private struct Runs {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-bench-compare-\(UUID())")

        /// Writes a run whose decode time is `samples` × `scale`; `withSamples: false` is a run
        /// from before samples.csv existed.
        func write(_ name: String, scale: Double, withSamples: Bool = true) throws -> String {
            let run = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
            let values = BenchCompareCommandTests.samples.map { $0 * scale }
            let sorted = values.sorted()
            let results = """
                scenario,parameters,metric,unit,direction,min,p25,p50,p75,p90,p99,max,samples,note
                fetch,size=12MP,time-to-pixels,ms,lower is better,\(sorted[0]),\(sorted[1]),\(sorted[3]),\(sorted[5]),\(sorted[7]),\(sorted[7]),\(sorted[7]),8,
                feed,rtt=50ms,time-to-all,ms,lower is better,,,,,,,,0,skipped: nginx not installed

                """
            try results.write(to: run.appendingPathComponent("results.csv"), atomically: true, encoding: .utf8)
            if withSamples {
                let lines = values.enumerated().map { "fetch,size=12MP,time-to-pixels,\($0.offset + 1),\($0.element)" }
                try (["scenario,parameters,metric,sample,value"] + lines + [""]).joined(separator: "\n")
                    .write(to: run.appendingPathComponent("samples.csv"), atomically: true, encoding: .utf8)
            }
            return run.path
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test(arguments: [
        (1.0, Int32(0), "WITHIN NOISE"),   // the same build twice
        (1.2, 2, "WORSE"),                 // 20% slower
        (0.8, 4, "BETTER"),                // 20% faster
    ])
    func exitsLikeBenchCheck(scale: Double, status: Int32, verdict: String) async throws {
        let runs = Runs()
        defer { runs.remove() }
        let base = try runs.write("base", scale: 1), new = try runs.write("new", scale: scale)
        let run = try await CommandRunner.run(["bench", "compare", base, new])
        #expect(run.status == status, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix(verdict) == true, "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("SKIPPED") && $0.contains("nginx not installed") })
        #expect(lines.contains { $0.hasPrefix("bench compare: ") && $0.hasSuffix("(exit \(status))") })
        for file in ["comparison.md", "comparison.html"] {
            #expect(FileManager.default.fileExists(atPath: new + "/" + file), "\(file) beside NEW")
        }
    }

    @Test func theCSVFilesAThresholdAndAnOutDirectoryAreAccepted() async throws {
        let runs = Runs()
        defer { runs.remove() }
        let base = try runs.write("base", scale: 1), new = try runs.write("new", scale: 1.04)
        let out = runs.root.appendingPathComponent("out").path
        let loose = try await CommandRunner.run(["bench", "compare", base + "/results.csv", new + "/results.csv", "--out", out])
        #expect(loose.status == 0, "4% is within the default 5%: \(loose.stdout)\(loose.stderr)")
        #expect(FileManager.default.fileExists(atPath: out + "/comparison.html"))
        let strict = try await CommandRunner.run(["bench", "compare", base, new, "--threshold", "2", "--out", out])
        #expect(strict.status == 2, "4% is beyond 2%: \(strict.stdout)\(strict.stderr)")
    }

    /// `bench`'s run options are refused after `compare` (not silently ignored), and `imago bench`
    /// still takes them itself.
    @Test func runOptionsBelongToBenchItself() async throws {
        let runs = Runs()
        defer { runs.remove() }
        let base = try runs.write("base", scale: 1)
        let misplaced = try await CommandRunner.run(["bench", "compare", base, base, "--quick"])
        #expect(misplaced.status == 64)
        #expect(misplaced.stderr.contains("--quick is an option of imago bench, not of imago bench compare"), "\(misplaced.stderr)")
        let help = try await CommandRunner.run(["bench", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--scenario") && help.stdout.contains("compare"), "\(help.stdout)")
        let unknown = try await CommandRunner.run(["bench", "--scenario", "nope"])
        #expect(unknown.status == 64 && unknown.stderr.contains("nope"), "\(unknown.stderr)")
    }

    @Test func aRunWithoutSamplesIsOneLineAndExit66() async throws {
        let runs = Runs()
        defer { runs.remove() }
        let base = try runs.write("old", scale: 1, withSamples: false), new = try runs.write("new", scale: 1)
        let run = try await CommandRunner.run(["bench", "compare", base, new])
        #expect(run.status == 66)
        #expect(run.stderr == "error: \(base) has no samples.csv: it was written before imago bench kept its samples, "
                + "so it cannot be compared; run imago bench again\n")
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: new + "/comparison.md"))
    }

    @Test func aMalformedRunExits65AndAMissingOne66() async throws {
        let runs = Runs()
        defer { runs.remove() }
        let base = try runs.write("base", scale: 1), new = try runs.write("new", scale: 1)
        try "scenario,parameters,metric,sample,value\nfetch,size=12MP,time-to-pixels,1,fast\n"
            .write(toFile: new + "/samples.csv", atomically: true, encoding: .utf8)
        let malformed = try await CommandRunner.run(["bench", "compare", base, new])
        #expect(malformed.status == 65)
        #expect(malformed.stderr == "error: \(new)/samples.csv:2: value \"fast\" is not a finite number\n")
        let missing = try await CommandRunner.run(["bench", "compare", base, runs.root.path + "/nope"])
        #expect(missing.status == 66)
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }
}
