/// How much faster or slower the machine ran between two runs, read from the rows of code that
/// neither build changes: in the decode and thumbnail scenarios, every decoder besides Imago's
/// own (the bare C call, `c-direct`, and the peers: Pillow, libvips, OpenCV, simplejpeg,
/// libspng), measured interleaved with Imago's rows.
///
/// Why: on a shared machine a whole stretch of a run can go slower or faster. In A/A runs of one
/// build (`--scenario decode --quick`, 2026-11-27) every decoder of a format and size moved
/// together by up to 30% from one run to the next, the peers as much as Imago, and bootstrap
/// intervals from within each run called all of them changed. A code change moves Imago's rows
/// only, so Imago's change is judged after dividing its new samples by the factor its
/// references moved by: the median, over the references of the same scenario, metric and
/// parameters (format, size, ...), of their new median over their base median. The references
/// do not all move alike (in those runs the 0.25 MP rows' references spread by up to 14% around
/// their median), so a row must also change by more than that spread (the largest distance of
/// a reference's ratio from the factor) to get a verdict: a change the machine's own noise
/// could make is no verdict. Reference rows themselves are shown, never judged
/// (``RunComparison/Verdict/reference``).
public struct MachineDrift: Sendable, Equatable {
    /// The parameters naming who was measured: `decoder` (decode) and `method` (thumbnails).
    static let subjectParameters = ["decoder", "method"]
    /// Who, besides the peers, is a reference: the bare C call.
    static let referenceSubjects: Set<String> = ["c-direct"]
    /// The parameters that tell the variants of one comparison apart (and so are left out of
    /// the group a row's references are looked up in).
    static let variantParameters: Set<String> = ["decoder", "method", "state"]

    /// The factor per group, from the references measured in both runs.
    let factors: [Group: Factor]

    /// One group's factor, how far its references strayed from it, and how many there were.
    struct Factor: Sendable, Equatable {
        /// The median of the references' new / base medians.
        let value: Double
        /// The largest `|ratio / value − 1|` of a reference (0 with one reference).
        let spread: Double
        let references: Int
    }

    /// Rows whose references are looked up together.
    struct Group: Hashable, Sendable {
        let scenario: String, metric: String, parameters: String
    }

    /// The drift between `base` and `new`, from every reference row measured (median > 0) in both.
    public init(base: [BenchResult], new: [BenchResult]) {
        let newByKey = Dictionary(new.map { (RowKey($0), $0) }, uniquingKeysWith: { first, _ in first })
        var ratios: [Group: [Double]] = [:]
        for row in base where Self.isReference(RowKey(row)) {
            guard let baseMedian = row.p50, baseMedian > 0, let newMedian = newByKey[RowKey(row)]?.p50 else { continue }
            ratios[Self.group(RowKey(row)), default: []].append(newMedian / baseMedian)
        }
        factors = ratios.mapValues { ratios in
            let value = Self.median(ratios)
            return Factor(value: value, spread: ratios.map { abs($0 / value - 1) }.max() ?? 0, references: ratios.count)
        }
    }

    /// True for a row measuring a decoder or method other than Imago's: the bare C call or a peer.
    public static func isReference(_ key: RowKey) -> Bool {
        subjectParameters.contains { name in
            guard let who = Parameters.value(of: name, in: key.parameters) else { return false }
            return referenceSubjects.contains(who) || DecodePeers.named(who) != nil
        }
    }

    /// The factor `key`'s new samples are divided by, or nil when its group has no reference
    /// measured in both runs (the row is judged as measured).
    func factor(for key: RowKey) -> Factor? {
        factors[Self.group(key)]
    }

    static func group(_ key: RowKey) -> Group {
        let kept = key.parameters.split(separator: " ").filter { pair in
            !variantParameters.contains(String(pair.split(separator: "=", maxSplits: 1)[0]))
        }
        return Group(scenario: key.scenario, metric: key.metric, parameters: kept.joined(separator: " "))
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
