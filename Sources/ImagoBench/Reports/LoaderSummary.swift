extension ReportSummary {
    /// Each benched loader's overhead over the raw control, in the order the subjects ran: time
    /// to pixels per source (network, disk, memory) and strategy, then throughput at the highest
    /// concurrency measured. A source the loader does not offer is "n/a", never a number.
    static func loader(_ results: [BenchResult]) -> (String, String)? {
        let rows = results.filter { $0.scenario == ControlOverhead.loaderScenario && $0.metric == ControlOverhead.metric }
        var subjects: [String] = []
        for row in rows {
            if let subject = row.parameter("subject"), !subjects.contains(subject) { subjects.append(subject) }
        }
        guard !subjects.isEmpty else { return nil }
        let parts = subjects.map { subject -> String in
            let own = rows.filter { $0.parameter("subject") == subject }
            var pieces = ["network", "disk", "memory"].map { source -> String in
                let measured = own.filter { $0.parameter("source") == source }.compactMap { row in
                    row.p50.map { "\(row.parameter("strategy") ?? "default") \(ratio($0))" }
                }
                return "\(source) " + (measured.isEmpty ? "n/a" : measured.joined(separator: ", "))
            }
            let throughput = own.compactMap { row -> (Int, Double)? in
                guard let level = row.parameter("concurrency").flatMap(Int.init), let p50 = row.p50 else { return nil }
                return (level, p50)
            }.max { $0.0 < $1.0 }
            pieces.append(throughput.map { "throughput at concurrency \($0.0) \(ratio($0.1))" } ?? "throughput n/a")
            return "\(subject): " + pieces.joined(separator: "; ")
        }
        return ("Loaders against the raw control: time over the control's (1.00× = no overhead)", parts.joined(separator: " · "))
    }

    private static func ratio(_ value: Double) -> String {
        String(format: "%.2f×", value)
    }
}
