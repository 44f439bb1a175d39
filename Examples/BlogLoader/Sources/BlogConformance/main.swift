import BlogAdapter
import Foundation
import ImagoConformance

// Runs every conformance check against the blog loader, writes the Markdown report (to the
// path given as the first argument, default blog-conformance.md) and, as it goes, the results
// log beside it (.jsonl: a crash keeps every result before it, and names the check it was in),
// and exits 0 only when the loader scores what `ExpectedScore` says.
let output = CommandLine.arguments.dropFirst().first ?? "blog-conformance.md"
let log = try ResultLog(url: URL(fileURLWithPath: output).deletingPathExtension().appendingPathExtension("jsonl"))
let subject = ConformanceSubject(name: "blog-loader", capabilities: [.memoryCache, .diskCache, .targetSize],
                                 expectedToFail: ExpectedScore.knownFailures.map(\.rule)) { context in
    try BlogLoaderAdapter(context: context)
}
let report = try await ConformanceRunner(resultLog: log).run(subject)
try ConformanceReport(subjects: [report]).markdown().write(toFile: output, atomically: true, encoding: .utf8)

for result in report.results {
    print("\(result.rule) \(result.status.rawValue)")
}
// A model-based check (MODEL-…) draws random sequences: it may fail only by diverging on a
// known failure's rule (CheckResult.divergedRule), and need not fail (SubjectReport.meetsExpectation).
let scenarios = report.results.filter { !ConformanceCheck.isModelBased($0.rule) }.map(\.rule)
let unexpectedScenarios = Set(report.failedRules.filter(scenarios.contains))
    .symmetricDifference(Set(subject.expectedToFail).intersection(scenarios))
let unexpectedModels = report.results.filter {
    ConformanceCheck.isModelBased($0.rule) && $0.status.isFailing && !subject.expectedToFail.contains($0.divergedRule ?? "")
}.map(\.rule)
if report.meetsExpectation {
    print("blog-loader scores as expected (\(report.failedRules.count) known failures); report in \(output)")
} else {
    for rule in unexpectedScenarios.sorted() + unexpectedModels {
        let result = report.result(for: rule)
        print("UNEXPECTED \(rule): \(result?.status.rawValue ?? "not run") \(result?.evidence ?? "")")
    }
    exit(1)
}
