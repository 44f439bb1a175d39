import ArgumentParser
import Foundation
import Imago
import ImagoBench
import ImagoLoaderBench

/// `imago bench`: runs the benchmark scenarios and writes `Reports/<UTC timestamp>/`
/// (results.csv, samples.csv, report.md, report.html, SVG charts), re-pointing `Reports/latest` at it;
/// `imago bench compare` compares two such runs.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the benchmark scenarios and write a CSV/Markdown/SVG/HTML report.",
        // argument-parser's own usage line for a command with a subcommand is
        // "imago bench <subcommand>", which hides that `imago bench` alone runs the scenarios.
        usage: """
            imago bench [--scenario NAME ...] [--subject NAME ...] [--quick] [--out DIR] [--inputs DIR] [--python PATH]
            imago bench compare BASE NEW [--threshold PERCENT] [--as-measured] [--out DIR]
            """,
        discussion: "Scenarios: \(BenchScenarios.names.joined(separator: ", ")). `--subject NAME` runs the loader "
            + "scenario on a conformance subject (`imago conform`'s names; repeatable or comma-separated), alone "
            + "unless `--scenario` names others. `imago bench compare BASE NEW` compares two runs.",
        // Without a subcommand name `imago bench` runs the scenarios (its own run()).
        subcommands: [BenchCompareCommand.self])

    @Option(name: .customLong("scenario"), help: "Run only this scenario (repeatable; default: all).")
    var scenarios: [String] = []

    @Option(name: .customLong("subject"),
            help: "Bench this conformance subject's loader against the raw control (repeatable or comma-separated; default: none).")
    var subjects: [String] = []

    @Flag(help: "Fewer sizes and samples (about two minutes).")
    var quick = false

    @OptionGroup var output: BenchOutputOption

    @Option(help: "Where generated inputs are cached (outside git).")
    var inputs = BenchCommand.defaultInputs

    @Option(help: "Python interpreter the peers (Pillow, libvips, OpenCV, simplejpeg, libspng) run in.")
    var python = BenchCommand.defaultPython

    func validate() throws {
        do { _ = try BenchScenarios.select(scenarios) } catch { throw ValidationError("\(error)") }
        do {
            _ = try LoaderBench.select(subjects, from: ConformCommand.allSubjects)
        } catch {
            // One line naming the valid subjects: the usage text would bury them.
            printError("error: \(error)")
            throw ExitCode(64)
        }
    }

    /// The scenarios this run measures: with `--subject`, the loader scenario, after the ones
    /// `--scenario` names (none by default); otherwise the named scenarios, or all.
    func selectedScenarios() throws -> [any BenchScenario] {
        let loaderSubjects = try LoaderBench.select(subjects, from: ConformCommand.allSubjects)
        guard !loaderSubjects.isEmpty else { return try BenchScenarios.select(scenarios) }
        return (scenarios.isEmpty ? [] : try BenchScenarios.select(scenarios)) + [LoaderScenario(subjects: loaderSubjects)]
    }

    func run() async throws {
        // The loader scenario measures memory in fresh copies of this process: such a copy
        // measures, prints and exits here, before any scenario runs.
        if !subjects.isEmpty { await LoaderBench.serveMemoryProbe(subjects: ConformCommand.allSubjects) }
        // A peer's warm interpreter that dies (a crash in its library) must cost that peer's rows
        // (the write to its stdin fails with EPIPE and the rows say so), not the whole run.
        signal(SIGPIPE, SIG_IGN)
        let context = BenchContext(quick: quick, inputsDirectory: inputs, executable: Self.executablePath,
                                   peers: PeerStatus.locateAll(python: python), progress: ProgressReporter())
        let runner = BenchRunner(context: context, scenarios: try selectedScenarios(),
                                 root: URL(fileURLWithPath: output.out ?? "Reports", isDirectory: true))
        _ = try await runner.run()
    }

    /// The options of a run that `imago bench compare` would otherwise accept and ignore (the
    /// parent's options are parsed from the whole command line), named for its error.
    var runOptionsGiven: [String] {
        (scenarios.isEmpty ? [] : ["--scenario"]) + (subjects.isEmpty ? [] : ["--subject"]) + (quick ? ["--quick"] : [])
            + (inputs == Self.defaultInputs ? [] : ["--inputs"]) + (python == Self.defaultPython ? [] : ["--python"])
    }

    static let defaultInputs = ".bench-inputs", defaultPython = "python3"

    static var executablePath: String { BenchContext.currentExecutable }
}

/// `--out`, shared by `imago bench` and `imago bench compare` as one option group: argument-parser
/// parses a parent's options from the whole command line, so a `--out` of `compare`'s own would
/// be taken by `bench`'s; shared, the one parsed value reaches both.
struct BenchOutputOption: ParsableArguments {
    @Option(help: ArgumentHelp("imago bench: the reports root, the run goes to DIR/<UTC timestamp>/ and DIR/latest "
                               + "points at it (default: Reports). imago bench compare: where comparison.md and "
                               + "comparison.html go (default: NEW's directory).", valueName: "DIR"))
    var out: String?
}

/// `imago bench-child FILE`: one decode in this fresh process, printing its milliseconds.
struct BenchChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-child", abstract: "Decode FILE once and print the milliseconds (used by bench).",
        shouldDisplay: false)

    @Argument var file: String

    func run() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        var failure: DecodeError?
        let ms = measureMilliseconds {
            do throws(DecodeError) { _ = try ImageDecoder.decode(data) } catch { failure = error }
        }
        if let failure {
            printError("error: \(failure)")
            throw ExitCode(65)
        }
        print(String(format: "%.4f", ms))
    }
}

/// `imago bench-probe JSON`: one memory probe in this fresh process, printing its result as JSON.
struct BenchProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-probe", abstract: "Run one memory probe and print its JSON result (used by bench).",
        shouldDisplay: false)

    @Argument(help: "A MemoryProbe as JSON.") var probe: String

    func run() async throws {
        let probe = try JSONDecoder().decode(MemoryProbe.self, from: Data(self.probe.utf8))
        let result = try await MemoryProbeRunner.run(probe)
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    }
}
