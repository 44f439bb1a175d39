import BlogAdapter
import Foundation
import ImagoConformance

// Runs every conformance check against the blog loader, writes the Markdown report (to the
// path given as the first argument, default blog-conformance.md) and, as it goes, the results
// log beside it (.jsonl: a crash keeps every result before it, and names the check it was in),
// and exits 0 only when the loader scores exactly what `ExpectedScore` says.
let output = CommandLine.arguments.dropFirst().first ?? "blog-conformance.md"
let log = try ResultLog(url: URL(fileURLWithPath: output).deletingPathExtension().appendingPathExtension("jsonl"))
let subject = ConformanceSubject(name: "blog-loader", capabilities: [.memoryCache, .diskCache, .targetSize],
                                 expectedToFail: ExpectedScore.knownFailures.map(\.rule)) { context in
    try BlogLoaderAdapter(context: context)
}
let report = try await ConformanceRunner(resultLog: log).run(subject)
try ConformanceReport(subjects: [report]).markdown().write(toFile: output, atomically: true, encoding: .utf8)

for result in report.results {
    print("\(result.rule) \(result.verdictText)")
}
let unexpected = Set(report.failedRules).symmetricDifference(subject.expectedToFail)
if unexpected.isEmpty {
    print("blog-loader scores as expected (\(report.failedRules.count) known failures); report in \(output)")
} else {
    for rule in unexpected.sorted() {
        let result = report.result(for: rule)
        print("UNEXPECTED \(rule): \(result?.status.rawValue ?? "not run") \(result?.evidence ?? "")")
    }
    exit(1)
}
