import ArgumentParser
import Foundation
import ImagoBench

/// `imago bench compare BASE NEW`: two runs' results compared row by row, each metric's change
/// of median with a 95% bootstrap interval and a verdict; exits like `bench-check` (0 within
/// noise, 2 a regression, 4 improvements only). Writes comparison.md and comparison.html.
struct BenchCompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two bench runs: each metric's change with a 95% confidence interval and a verdict.",
        discussion: "BASE and NEW are run directories (Reports/<timestamp>) or their results.csv; samples.csv must be "
            + "beside it. A row is better or worse only when the bootstrap interval of its median's change excludes 0 "
            + "and the change passes the threshold (default \(ChangeThreshold.defaultsSummary)); "
            + "fewer than \(RunComparison.minimumSamples) samples a side: no verdict. Rows of code neither build changes "
            + "(the bare C call and the peers in the decode and thumbnail scenarios) are references, shown and never "
            + "judged: the rows measured beside them are judged after the machine's drift they show (NEW divided by the "
            + "median factor their references moved by); --as-measured judges every row as measured. Exit status: 0 no change beyond "
            + "noise; 2 a row worse, or measured in BASE but not in NEW; 4 nothing worse and a row better or newly "
            + "measured; 66 a run that cannot be read or has no samples.csv; 65 a malformed file.")

    @Argument(help: "The base run: a run directory or its results.csv.")
    var base: String

    @Argument(help: "The new run: a run directory or its results.csv.")
    var new: String

    @Option(help: ArgumentHelp("The relative threshold in percent for every metric, instead of each row's default (see above); the MiB and ms floors are kept.",
                               valueName: "PERCENT"))
    var threshold: Double?

    @Flag(help: "Judge every row as measured: no reference rows, no correction for the machine's drift (default: off).")
    var asMeasured = false

    @OptionGroup var output: BenchOutputOption

    /// `imago bench`, to refuse its run options after `compare` rather than ignore them.
    @ParentCommand var bench: BenchCommand

    func validate() throws {
        if let given = bench.runOptionsGiven.first {
            throw ValidationError("\(given) is an option of imago bench, not of imago bench compare")
        }
        if let threshold, !(threshold >= 0 && threshold.isFinite) {
            throw ValidationError("--threshold must be a percentage of 0 or more")
        }
    }

    func run() throws {
        let comparison = RunComparison(base: try load(base), new: try load(new), threshold: threshold.map { $0 / 100 },
                                       correctsDrift: !asMeasured)
        ComparisonReport.lines(comparison).forEach { print($0) }
        let directory = URL(fileURLWithPath: output.out ?? Self.directory(of: new), isDirectory: true)
        let files = [("comparison.md", ComparisonReport.markdown(comparison, base: base, new: new)),
                     ("comparison.html", ComparisonReport.html(comparison, base: base, new: new))]
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, contents) in files {
                try contents.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
        } catch {
            printError("error: cannot write the comparison into \(directory.path): \((error as NSError).localizedDescription)")
            throw ExitCode(PixelOutput.failureStatus)
        }
        print("report: \(directory.appendingPathComponent("comparison.md").path)")
        if comparison.status != .within { throw ExitCode(comparison.status.rawValue) }
    }

    /// The run at `path`, or one line on standard error and exit 66 / 65.
    private func load(_ path: String) throws -> [BenchResult] {
        do { return try RunReader.load(path) } catch {
            printError("error: \(error)")
            throw ExitCode(error.exitStatus)
        }
    }

    /// The directory of a run given as a directory or as its results.csv.
    static func directory(of path: String) -> String {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? path : URL(fileURLWithPath: path).deletingLastPathComponent().path
    }
}
