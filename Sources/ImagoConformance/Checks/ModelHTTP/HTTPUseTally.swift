/// How MODEL-HTTP's uses went, for the evidence of a pass: a run that only ever fetched would
/// agree with the reference without showing much.
@MainActor
final class HTTPUseTally {
    /// What one use did.
    enum Outcome: CaseIterable {
        case servedStored, validatedNotModified, validatedReplaced, fetched
    }

    private var counts: [Outcome: Int] = [:]
    private var withLatitude = 0

    /// Counts a use that agreed with the reference's `allowed`.
    func count(_ outcome: Outcome, _ allowed: CacheUse) {
        counts[outcome, default: 0] += 1
        if [allowed.mayServeStored, allowed.mayValidate, allowed.mayFetch].filter({ $0 }).count > 1 { withLatitude += 1 }
    }

    /// `uses: 12 served stored without a request, 8 revalidated (304), …`, for the evidence.
    var summary: String {
        "uses: \(counts[.servedStored, default: 0]) served stored without a request, "
            + "\(counts[.validatedNotModified, default: 0]) revalidated (304), "
            + "\(counts[.validatedReplaced, default: 0]) conditional answered 200, "
            + "\(counts[.fetched, default: 0]) unconditional; \(withLatitude) of them where the RFC allowed more than one"
    }
}
