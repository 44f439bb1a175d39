import ArgumentParser
import Foundation
import ImagoConformance
import ImagoConformanceSubjects

/// `imago conform`: runs the conformance suite and prints the rule × subject matrix.
struct ConformCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Run the conformance suite against Imago's configurations and the mutant loaders.",
        discussion: """
            Subjects: imago-<data|file>-<none|memory|disk|memory+disk>, toy-reference (the mutants' \
            bug-free control) and mutant-<bug>. Exit status: 0 when every Imago configuration passes \
            every applicable rule and every mutant is caught by exactly its expected rules; 1 otherwise; \
            64 on bad usage.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case md, csv, json
    }

    @Option(name: .customLong("subject"), help: "Run only this subject (repeatable; default: all).")
    var subjects: [String] = []

    @Option(name: .customLong("rule"), help: "Run only this rule or family, e.g. SHARE-2 or DISK (repeatable).")
    var rules: [String] = []

    @Option(help: "Output format: md, csv or json.")
    var format: Format = .md

    @Option(help: "Write the report to this file instead of standard output.")
    var out: String?

    static var allSubjects: [ConformanceSubject] {
        ImagoSubjects.all + [MutantSubjects.reference] + MutantSubjects.all
    }

    func validate() throws {
        let known = Set(Self.allSubjects.map(\.name))
        for name in subjects where !known.contains(name) {
            throw ValidationError("unknown subject \(name); known: \(Self.allSubjects.map(\.name).joined(separator: ", "))")
        }
        let families = Set(ConformanceCheck.ruleIDs.map { String($0.prefix { $0 != "-" }) })
        for rule in rules where !ConformanceCheck.ruleIDs.contains(rule.uppercased()) && !families.contains(rule.uppercased()) {
            throw ValidationError("unknown rule \(rule); rules: \(ConformanceCheck.ruleIDs.joined(separator: ", "))")
        }
    }

    @MainActor
    func run() async throws {
        let selected = subjects.isEmpty ? Self.allSubjects : Self.allSubjects.filter { subjects.contains($0.name) }
        let runner = rules.isEmpty ? ConformanceRunner() : ConformanceRunner().only(rules)
        var report = ConformanceReport(subjects: [])
        for subject in selected {
            let started = ContinuousClock.now
            let result = try await runner.run(subject)
            report.subjects.append(result)
            let failed = result.failedRules.isEmpty ? "none" : result.failedRules.joined(separator: ",")
            let verdict = result.meetsExpectation ? "as expected" : "NOT AS EXPECTED"
            FileHandle.standardError.write(Data(
                "\(subject.name): failed \(failed) (\(verdict), \(ContinuousClock.now - started))\n".utf8))
        }
        let text: String
        switch format {
        case .md: text = report.markdown()
        case .csv: text = report.csv()
        case .json: text = try report.json()
        }
        if let out {
            try Data(text.utf8).write(to: URL(fileURLWithPath: out))
        } else {
            print(text, terminator: "")
        }
        if !report.subjects.allSatisfy(\.meetsExpectation) { throw ExitCode(1) }
    }
}
