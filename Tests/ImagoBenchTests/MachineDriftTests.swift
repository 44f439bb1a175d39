import Testing
@testable import ImagoBench

/// `bench compare` judging Imago's rows after the machine's drift that the references (the
/// bare C call, the peers) measured beside them show, and never judging the references.
@Suite struct MachineDriftTests {
    /// The drift rules judged at a quiet machine's 5%, not the decode scenario's default
    /// (``ChangeThreshold/cpuBoundTiming``), so a 10% change is a change.
    private let quiet = 0.05

    private static let base: [Double] = [100, 101, 99, 100, 102, 98, 100]

    /// A decode row of `decoder` for 12 MP JPEG, throughput in MP/s scaled by `speed`.
    private func decode(_ decoder: String, speed: Double, state: String = "warm", format: String = "jpeg-baseline",
                        size: String = "12MP") -> BenchResult {
        BenchResult(scenario: "decode", parameters: "format=\(format) size=\(size) decoder=\(decoder) state=\(state)",
                    metric: "throughput", unit: "MP/s", direction: .higherIsBetter,
                    samples: Self.base.map { $0 * speed })
    }

    private func verdicts(_ comparison: RunComparison) -> [String: RunComparison.Verdict] {
        Dictionary(uniqueKeysWithValues: comparison.rows.map { ($0.key.parameters, $0.verdict) })
    }

    @Test func aSlowerMachineIsNoRegressionOfImago() throws {
        // Everything ran 25% slower in NEW: the machine, not the build.
        let base = [decode("imago", speed: 1, state: "fresh"), decode("c-direct", speed: 1), decode("libvips", speed: 1)]
        let new = [decode("imago", speed: 0.75, state: "fresh"), decode("c-direct", speed: 0.75), decode("libvips", speed: 0.75)]
        let comparison = RunComparison(base: base, new: new, threshold: quiet)
        let imago = try #require(comparison.rows.first { $0.key.parameters.contains("decoder=imago") })
        #expect(imago.verdict == .withinNoise && imago.drift == 0.75)
        #expect(imago.note.contains("as measured -25.0%"), "\(imago.note)")
        #expect(comparison.rows.filter { $0.verdict == .reference }.count == 2)
        #expect(comparison.status == .within)
        // Judged as measured, the same runs are a regression of every row.
        let raw = RunComparison(base: base, new: new, threshold: quiet, correctsDrift: false)
        #expect(raw.rows.allSatisfy { $0.verdict == .worse } && raw.status == .regression)
    }

    @Test func aSlowerImagoOnASteadyMachineIsARegression() {
        // A planted 10% slowdown of Imago alone; the references did not move.
        let base = [decode("imago", speed: 1, state: "fresh"), decode("c-direct", speed: 1), decode("simplejpeg", speed: 1)]
        let new = [decode("imago", speed: 1 / 1.1, state: "fresh"), decode("c-direct", speed: 1), decode("simplejpeg", speed: 1)]
        let comparison = RunComparison(base: base, new: new, threshold: quiet)
        #expect(verdicts(comparison)["format=jpeg-baseline size=12MP decoder=imago state=fresh"] == .worse)
        #expect(comparison.status == .regression)
    }

    @Test func aSlowerImagoOnAFasterMachineIsStillARegression() throws {
        // The machine ran 20% faster, Imago only 8% faster: 10% slower than the machine allows.
        let base = [decode("imago", speed: 1, state: "fresh"), decode("c-direct", speed: 1), decode("opencv", speed: 1)]
        let new = [decode("imago", speed: 1.2 / 1.1, state: "fresh"), decode("c-direct", speed: 1.2), decode("opencv", speed: 1.2)]
        let comparison = RunComparison(base: base, new: new, threshold: quiet)
        let imago = try #require(comparison.rows.first { $0.key.parameters.contains("decoder=imago") })
        #expect(imago.verdict == .worse, "\(imago)")
        #expect(abs((imago.change ?? 0) - (1 / 1.1 - 1)) < 1e-9)
    }

    @Test func driftIsReadPerFormatAndSizeFromTheMedianReference() {
        // 0.25 MP rows slowed by 30%, 12 MP rows did not; one odd reference does not move the median.
        let base = [decode("imago", speed: 1, size: "0.25MP"), decode("c-direct", speed: 1, size: "0.25MP"),
                    decode("pillow", speed: 1, size: "0.25MP"), decode("libvips", speed: 1, size: "0.25MP"),
                    decode("imago", speed: 1), decode("c-direct", speed: 1)]
        let new = [decode("imago", speed: 0.7, size: "0.25MP"), decode("c-direct", speed: 0.7, size: "0.25MP"),
                   decode("pillow", speed: 0.7, size: "0.25MP"), decode("libvips", speed: 2, size: "0.25MP"),
                   decode("imago", speed: 0.7), decode("c-direct", speed: 1)]
        let comparison = RunComparison(base: base, new: new, threshold: quiet)
        let found = verdicts(comparison)
        #expect(found["format=jpeg-baseline size=0.25MP decoder=imago state=warm"] == .withinNoise)
        #expect(found["format=jpeg-baseline size=12MP decoder=imago state=warm"] == .worse)
        #expect(comparison.rows.first { $0.key.parameters == "format=jpeg-baseline size=0.25MP decoder=imago state=warm" }?
                    .drift == 0.7)
    }

    @Test func aChangeWithinTheReferencesOwnSpreadIsNoVerdict() throws {
        // The references moved by ×0.8, ×0.9 and ×1.0: the factor is 0.9 and one strayed 11% from
        // it, so Imago's 10% after the drift is a change the machine could have made.
        let base = [decode("imago", speed: 1, state: "fresh"), decode("c-direct", speed: 1), decode("pillow", speed: 1),
                    decode("libvips", speed: 1)]
        let new = [decode("imago", speed: 0.81, state: "fresh"), decode("c-direct", speed: 0.8), decode("pillow", speed: 1),
                   decode("libvips", speed: 0.9)]
        let imago = try #require(RunComparison(base: base, new: new, threshold: quiet).rows.first { $0.key.parameters.contains("decoder=imago") })
        #expect(imago.verdict == .withinNoise, "\(imago)")
        #expect(imago.note.contains("strayed up to 11.1% from it"), "\(imago.note)")
        // With steadier references the same change is a regression.
        let steady = [decode("imago", speed: 0.81, state: "fresh"), decode("c-direct", speed: 0.9),
                      decode("pillow", speed: 0.9), decode("libvips", speed: 0.9)]
        #expect(RunComparison(base: base, new: steady, threshold: quiet).status == .regression)
    }

    @Test func aPeerMissingFromOneRunIsNoRegression() {
        let base = [decode("imago", speed: 1, state: "fresh"), decode("libspng", speed: 1)]
        let new = [decode("imago", speed: 1, state: "fresh"),
                   BenchResult(scenario: "decode", parameters: "format=jpeg-baseline size=12MP decoder=libspng state=warm",
                               metric: "throughput", unit: "MP/s", direction: .higherIsBetter, skipped: "not installed")]
        let comparison = RunComparison(base: base, new: new, threshold: quiet)
        #expect(verdicts(comparison)["format=jpeg-baseline size=12MP decoder=libspng state=warm"] == .reference)
        #expect(comparison.status == .within)
    }

    @Test func rowsWithoutReferencesAreJudgedAsMeasured() {
        let row = { (speed: Double) in
            BenchResult(scenario: "throughput", parameters: "transport=ahc concurrency=8", metric: "throughput",
                        unit: "images/s", direction: .higherIsBetter, samples: Self.base.map { $0 * speed })
        }
        let comparison = RunComparison(base: [row(1)], new: [row(0.8)], threshold: quiet)
        #expect(comparison.rows[0].verdict == .worse && comparison.rows[0].drift == nil)
    }

    @Test func referencesAreTheBareCCallAndThePeersByDecoderOrMethod() {
        func key(_ parameters: String) -> RowKey { RowKey(scenario: "decode", parameters: parameters, metric: "throughput") }
        #expect(MachineDrift.isReference(key("format=png decoder=c-direct state=warm")))
        #expect(MachineDrift.isReference(key("format=png decoder=libspng state=warm-loop")))
        #expect(MachineDrift.isReference(key("format=png method=libvips thumbnail=256px")))
        #expect(!MachineDrift.isReference(key("format=png decoder=imago state=fresh")))
        #expect(!MachineDrift.isReference(key("format=png method=downsampled-decode thumbnail=256px")))
        #expect(!MachineDrift.isReference(key("subject=x variant=raw-control")))
    }
}
