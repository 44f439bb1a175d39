/// One bug class seen in real image loaders, reproduced by the toy loader when switched on.
public enum MutantBug: String, CaseIterable, Sendable {
    case noCoalescing = "no-coalescing"
    case firstLeaverCancelsSharedFetch = "first-leaver-cancels-shared-fetch"
    case cancellationPublishedAsFailure = "cancellation-published-as-failure"
    case resultPublishedAfterCancel = "result-published-after-cancel"
    case asynchronousMemoryHit = "asynchronous-memory-hit"
    case errorBodyDecoded = "error-body-decoded"
    case failuresCached = "failures-cached"
    case nonAtomicDiskWrites = "non-atomic-disk-writes"
    case costOrderedEviction = "cost-ordered-eviction"
    case isLoadingGuard = "is-loading-guard"
    case staleResultAfterSourceChange = "stale-result-after-source-change"
    case notFoundRetried = "404-retried"
    case truncatedBodyAccepted = "truncated-body-accepted"
    case madeUpProgressTotal = "made-up-progress-total"
    case publishesOffMainActor = "publishes-off-main-actor"
    case storesBeforeValidation = "stores-before-validation"
    case observerCoalesces = "observer-coalesces"

    /// What the bug does, for the report and the README.
    public var summary: String {
        switch self {
        case .noCoalescing: "every load fetches and decodes on its own"
        case .firstLeaverCancelsSharedFetch: "the coalesced fetch is cancelled when its first subscriber leaves"
        case .cancellationPublishedAsFailure: "a cancel surfaces as failure(cancelled)"
        case .resultPublishedAfterCancel: "cancel() only resets the phase; the load goes on and its result lands"
        case .asynchronousMemoryHit: "a memory hit is published a hop later, after a loading flash"
        case .errorBodyDecoded: "the status is never checked: a 404 page goes to the decoder"
        case .failuresCached: "failures are remembered and replayed without a new request"
        case .nonAtomicDiskWrites: "disk entries are written in place, so a crash leaves a partial entry that is handed to the decoder"
        case .costOrderedEviction: "the memory cache evicts the most expensive entries first, not the least recent"
        case .isLoadingGuard: "an isLoading flag guards load(), so a load of a new source is ignored while the old one runs"
        case .staleResultAfterSourceChange: "a source change does not cancel the old load, whose result is published"
        case .notFoundRetried: "404 counts as transient and is retried"
        case .truncatedBodyAccepted: "a connection closed mid-body is taken for the end of the body"
        case .madeUpProgressTotal: "without a Content-Length, the bytes so far are reported as the total"
        case .publishesOffMainActor: "terminal phases reach observers from a background thread"
        case .storesBeforeValidation: "bytes are stored before they are decoded, and removed only after the decode fails"
        case .observerCoalesces: "the adapter's observer (withObservationTracking-style) delivers only the latest phase of each main-actor turn"
        }
    }

    /// The rules that catch it: the mutant must fail exactly these.
    public var caughtBy: [String] {
        switch self {
        case .noCoalescing: ["SHARE-2"]
        case .firstLeaverCancelsSharedFetch: ["SHARE-3"]
        case .cancellationPublishedAsFailure: ["TRANS-2", "TRANS-3", "TRANS-4", "TRANS-5", "SHARE-3", "RETRY-2"]
        case .resultPublishedAfterCancel: ["TRANS-3", "SHARE-3", "SHARE-4", "RETRY-2"]
        case .asynchronousMemoryHit: ["CACHE-1"]
        case .errorBodyDecoded: ["ERR-1", "RETRY-1", "RETRY-2"]
        case .failuresCached: ["ERR-4", "RETRY-3"]
        case .nonAtomicDiskWrites: ["DISK-1"]
        case .costOrderedEviction: ["MEM-1", "MEM-3"]
        case .isLoadingGuard: ["SHARE-1", "SOURCE-1"]
        case .staleResultAfterSourceChange: ["SOURCE-1"]
        case .notFoundRetried: ["RETRY-1"]
        case .truncatedBodyAccepted: ["ERR-3"]
        case .madeUpProgressTotal: ["PROGRESS-1"]
        case .publishesOffMainActor: ["ORDER-1"]
        case .storesBeforeValidation: ["DISK-3"]
        // ORDER-2's own check, and every check whose calls change the phase twice in one turn:
        // the harness judges each model's observer at the end of every check.
        case .observerCoalesces: ["TRANS-2", "TRANS-5", "SOURCE-1", "SOURCE-2", "SHARE-1", "ORDER-2"]
        }
    }
}
