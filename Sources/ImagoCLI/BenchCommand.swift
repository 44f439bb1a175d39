import ArgumentParser
import Foundation
import Imago
import ImagoBench

/// `imago bench`: decode throughput over generated photo-like inputs, against the bare C
/// call and Pillow, printed as a Markdown table (and written to --out when given).
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure decode throughput (MP/s) per format and size against the bare C call and Pillow.")

    @Flag(help: "Fewer samples and only the 2 MP inputs (about a minute).")
    var quick = false

    @Option(help: "Where generated inputs are cached (default .bench-inputs, outside git).")
    var inputs = ".bench-inputs"

    @Option(help: "Also write the Markdown table to this file.")
    var out: String?

    @Option(help: "Python interpreter used for the Pillow peer.")
    var python = "python3"

    func run() throws {
        let sizes: [Double] = quick ? [2] : [2, 12]
        let benchInputs = try BenchInputs.prepare(megapixels: sizes, directory: inputs) { line in
            printError(line)
        }
        let benchmark = DecodeBenchmark(
            plan: quick ? .quick : SamplingPlan(),
            coldProcesses: quick ? 3 : 5,
            executable: Self.executablePath,
            pillow: PillowPeer.locate(python: python))
        var measurements: [DecodeMeasurement] = []
        for input in benchInputs {
            try benchmark.run(input) { measurement in
                measurements.append(measurement)
                let rate = measurement.megapixelsPerSecond.map { String(format: "%.1f MP/s", $0) }
                    ?? "skipped: \(measurement.skipped ?? "")"
                printError("\(input.kind) \(String(format: "%.1f", input.megapixels)) MP  \(measurement.decoder) \(measurement.state): \(rate)")
            }
        }
        let table = DecodeReport.markdown(measurements)
        print(table)
        if let out {
            let url = URL(fileURLWithPath: out)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (table + "\n").write(to: url, atomically: true, encoding: .utf8)
        }
    }

    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
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
