/// A phase the model showed synchronously, read by the recording wrapper right after a call it
/// forwarded returned (`RecordingModel`).
struct SynchronousRead: Sendable {
    let phase: ObservedPhase
    let at: ContinuousClock.Instant
    /// The step it followed, e.g. `model 2: setSource(/order-2/b.png)`.
    let call: String
}

/// The phases one model showed after the calls its recording wrapper forwarded, shared between
/// the wrapper and the check's run so the run can judge the model's observer at the end of the
/// check without keeping the model alive (MEM-5 watches it be released).
@MainActor
final class SynchronousReads {
    /// "model 2", as the steps name the model.
    let label: String
    private(set) var reads: [SynchronousRead] = []

    init(label: String) { self.label = label }

    func append(_ read: SynchronousRead) { reads.append(read) }
}

/// Judges whether an observer kept up with its model (ORDER-2): every phase the model showed
/// synchronously after a call must reach the observer, in order, and within a window of the
/// read. An observer that coalesces (delivers only the latest phase per main-actor turn, as one
/// built on `withObservationTracking` does) loses the phases between; one that lags delivers
/// them late. The observer may see more than was read (progress, phases published between
/// calls): only the reads must appear, as a subsequence.
enum ObserverFidelity {
    /// The symptom a result names when an observer lost or delayed phases (``CheckResult/symptom``).
    static let symptom = "the observer lost or delayed phases the model showed"

    /// The first read the observer lost or got late, described; nil when it kept up. Only reads
    /// from `attachedAt` on count (the observer's first phase is the one current then).
    static func violation(reads: [SynchronousRead], delivered: [(at: ContinuousClock.Instant, phase: ObservedPhase)],
                          attachedAt: ContinuousClock.Instant, window: Duration) -> String? {
        var next = delivered.startIndex
        var previous: ObservedPhase?
        for read in reads where read.at >= attachedAt {
            // The same phase read twice in a row is one publication (or none): one delivery.
            if read.phase == previous { continue }
            previous = read.phase
            guard let index = delivered[next...].firstIndex(where: { $0.phase == read.phase }) else {
                let seen = "[" + delivered.map(\.phase.description).joined(separator: ", ") + "]"
                return "\(read.phase), the phase right after \(read.call), never reached the observer, which got "
                    + "\(seen): deliver every phase, in order, as it is published, not only the latest one "
                    + "(withObservationTracking fires once per change and a read in its onChange sees only the "
                    + "latest value; forward the model's own publications instead)"
            }
            let lag = delivered[index].at - read.at
            if lag > window {
                return "\(read.phase), the phase right after \(read.call), reached the observer \(lag) later, "
                    + "beyond the settle window (\(window)): deliver phases as they are published"
            }
            next = delivered.index(after: index)
        }
        return nil
    }
}
