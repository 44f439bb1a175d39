import BlogAdapter
import Foundation
import ImagoLoaderBench

// Benches the blog loader against the raw control (AsyncHTTPClient into Imago's decoder) and
// writes the report under the directory given as an argument (default blog-bench-reports):
// `<dir>/<UTC timestamp>/report.md`, report.html and results.csv, which `imago bench compare`
// compares with an earlier run. `--quick` measures less (a few seconds; `make example` runs it).
// Exits 1 when the loader could not be measured (the report's row says why). `make example` runs
// a debug build to show it works; for figures worth reading, build with `-c release` (in a debug
// build the control's swift-nio path is compiled without optimisation, while corelibs URLSession,
// which this loader fetches with, comes prebuilt: the ratios would mislead).
let arguments = CommandLine.arguments.dropFirst()
let reports = URL(fileURLWithPath: arguments.first { !$0.hasPrefix("--") } ?? "blog-bench-reports", isDirectory: true)
let run = try await LoaderBench.run([BlogSubject.subject], quick: arguments.contains("--quick"), reports: reports)
if !run.failures.isEmpty {
    for failure in run.failures { print("blog-bench: \(failure)") }
    exit(1)
}
