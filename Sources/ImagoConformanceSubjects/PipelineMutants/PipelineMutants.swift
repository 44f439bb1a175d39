import Imago

/// When a planted bug was written, relative to the checks that judge it: what its result means.
public enum MutantGeneration: Int, Sendable, Comparable, CaseIterable {
    /// Generation 1: planted for its rule's check, which was written (or fixed) until it caught
    /// the bug in every run. That it is caught says the check does what it was built for, not
    /// how often it catches a mistake nobody planted; `imago mutants` fails if one escapes.
    case plantedForItsCheck = 1
    /// Generation 2: written as the mistake it is before anyone knew whether a check catches it
    /// (issue 24), across rules whose check builds one scenario of a broader contract. Measured,
    /// not required: its catch rate estimates the suite's teeth against unplanted bugs, and an
    /// escape does not fail `imago mutants`.
    case writtenBlind = 2

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// A bug planted in Imago's own code (`Mutant`), with the rule that must catch it.
public struct PipelineMutant: Sendable {
    public let mutant: Mutant
    /// The rule the bug breaks: its check must fail on every subject in `subjects`, every run.
    public let rule: String
    /// The Imago configurations it is run against: those whose code path the bug lives on and
    /// where the rule's check applies (a memory-cache bug needs a memory cache).
    public let subjects: [String]
    /// The bug, as a reviewer would describe it.
    public let bug: String
    /// When it was written relative to its check (default `.plantedForItsCheck`, generation 1):
    /// whether its rule must catch it (generation 1) or is only measured (generation 2).
    public let generation: MutantGeneration

    public init(mutant: Mutant, rule: String, subjects: [String], bug: String,
                generation: MutantGeneration = .plantedForItsCheck) {
        self.mutant = mutant
        self.rule = rule
        self.subjects = subjects
        self.bug = bug
        self.generation = generation
    }

    public var name: String { mutant.rawValue }
}

/// Every planted bug of `make mutants` (Reports/mutants.md), at least one per rule.
public enum PipelineMutants {
    /// Every bug, generation 1 then generation 2.
    public static let all: [PipelineMutant] = generation1 + generation2

    static let plain = ["imago-data-none"]
    static let memory = ["imago-data-memory"]
    static let disk = ["imago-data-disk"]
    static let bothStrategies = ["imago-data-none", "imago-file-none"]

    /// The bugs planted for their own rule's check (`MutantGeneration.plantedForItsCheck`).
    public static let generation1: [PipelineMutant] = [
        .init(mutant: .initEagerLoad, rule: "INIT-1", subjects: plain,
              bug: "The adapter warms the cache as soon as it makes the model: a load before load()."),
        .init(mutant: .initSilentWithoutSource, rule: "INIT-2", subjects: plain,
              bug: "load() without a source returns quietly instead of publishing missingSource."),
        .init(mutant: .initLoadingDeferred, rule: "INIT-3", subjects: plain,
              bug: "loading is published from a task the miss schedules, after load() returned."),
        .init(mutant: .transDuplicateSuccess, rule: "TRANS-1", subjects: plain,
              bug: "A success is delivered twice."),
        .init(mutant: .transHitAfterFailureSkipsLoading, rule: "TRANS-2", subjects: memory,
              bug: "A retry answered by the memory cache goes from failure straight to success."),
        .init(mutant: .transCancelOnlyResetsPhase, rule: "TRANS-3", subjects: plain,
              bug: "cancel() resets the phase but leaves the running load, which still publishes."),
        .init(mutant: .transCancelIsFailure, rule: "TRANS-4", subjects: plain,
              bug: "cancel() publishes failure(cancelled) instead of going back to empty."),
        .init(mutant: .transCancelKeepsTask, rule: "TRANS-5", subjects: plain,
              bug: "cancel() keeps the cancelled load as the current one, so load() thinks it runs."),
        .init(mutant: .cacheHitPublishesLoading, rule: "CACHE-1", subjects: memory,
              bug: "A memory hit publishes loading before its success."),
        .init(mutant: .cacheSkipsDiskLookup, rule: "CACHE-2", subjects: disk,
              bug: "The disk cache is written but never looked up (every request the loader makes reloads)."),
        .init(mutant: .cacheHitKeepsFirstOrigin, rule: "CACHE-3", subjects: memory,
              bug: "The model shows a memory hit as the response the image was first loaded with: origin network."),
        .init(mutant: .cacheCorruptEntryKept, rule: "CACHE-4", subjects: disk,
              bug: "The disk cache takes entries for immutable: it never removes one nor replaces it, so a corrupt entry is fetched around on every load and never repaired."),
        .init(mutant: .sourceChangeKeepsOldLoad, rule: "SOURCE-1", subjects: plain,
              bug: "A source change forgets the old load without cancelling it, and results are not tagged with their attempt."),
        .init(mutant: .sourceChangeKeepsOldSuccess, rule: "SOURCE-2", subjects: plain,
              bug: "A source change keeps the old image's success on screen until the new one loads."),
        .init(mutant: .sourceKeyIgnoresSize, rule: "SOURCE-3", subjects: memory,
              bug: "The memory cache keys images by source, leaving out the target size (a cache keyed by URL)."),
        .init(mutant: .shareReloadsSameKey, rule: "SHARE-1", subjects: plain,
              bug: "A second load() of a key that loaded or is loading starts another attempt."),
        .init(mutant: .shareNoCoalescing, rule: "SHARE-2", subjects: plain,
              bug: "The task pool never joins running work: each load fetches and decodes."),
        .init(mutant: .shareCancelOnFirstLeave, rule: "SHARE-3", subjects: plain,
              bug: "Shared work is cancelled as soon as any one subscriber leaves."),
        .init(mutant: .shareReusesCancelledTask, rule: "SHARE-4", subjects: plain,
              bug: "Work is forgotten only when it ends with an image or an error, "
                  + "so a load after everyone cancelled gets the cancelled work's cancellation."),
        .init(mutant: .shareLeaverKeepsPriority, rule: "SHARE-5", subjects: plain,
              bug: "A subscriber that leaves keeps counting in the shared work's priority."),
        .init(mutant: .errStatusAfterBody, rule: "ERR-1", subjects: bothStrategies,
              bug: "An error status is acted on only after its body has been read to the end (a transport that collects every body first)."),
        .init(mutant: .errNonImageIsTransportError, rule: "ERR-2", subjects: plain,
              bug: "A 200 whose body is not an image fails as a transport error (the transport checks the signature)."),
        .init(mutant: .errTruncationEndsBody, rule: "ERR-3", subjects: plain,
              bug: "A connection closed mid-body ends the body: the bytes so far are taken as the image."),
        .init(mutant: .errRemembersFailedURLs, rule: "ERR-4", subjects: plain,
              bug: "URLs that failed once fail at once afterwards, without a request (a failed-URL list, kept by the transport)."),
        .init(mutant: .retryClientErrors, rule: "RETRY-1", subjects: plain,
              bug: "Every 4xx is treated as transient and retried (all of 400-499 in RetryPolicy.retriedStatuses)."),
        .init(mutant: .retryBackOffOnWallClock, rule: "RETRY-2", subjects: plain,
              bug: "The retry back-off sleeps on the wall clock instead of the configured one."),
        .init(mutant: .retryNeedsActiveAttempt, rule: "RETRY-3", subjects: plain,
              bug: "retry() only retries an attempt still marked active, which the failure already cleared."),
        .init(mutant: .orderProgressAfterSuccess, rule: "ORDER-1", subjects: plain,
              bug: "A last 100% progress report is published after the success."),
        .init(mutant: .orderStreamSkipsCurrent, rule: "ORDER-2", subjects: plain,
              bug: "The phases stream starts with the next phase instead of the current one."),
        .init(mutant: .progressCountsChunksTwice, rule: "PROGRESS-1", subjects: plain,
              bug: "Progress counts each chunk twice."),
        .init(mutant: .memInsertSkipsEviction, rule: "MEM-1", subjects: memory,
              bug: "The memory cache evicts only on the next trim, not after each insert."),
        .init(mutant: .memEvictsBeforeRefusing, rule: "MEM-2", subjects: memory,
              bug: "The memory cache makes room before it checks the per-entry limit."),
        .init(mutant: .memTrimsNewestFirst, rule: "MEM-3", subjects: memory,
              bug: "Trimming drops the most recently used entries first."),
        .init(mutant: .memPressureIgnored, rule: "MEM-4", subjects: memory,
              bug: "The pipeline is not wired to memory pressure: the events arrive, nothing is trimmed."),
        .init(mutant: .memPipelinesRegistered, rule: "MEM-5", subjects: memory,
              bug: "Every pipeline registers itself in a process-wide list (for debugging) and stays there."),
        .init(mutant: .diskSweepKeepsTemporaries, rule: "DISK-1", subjects: disk,
              bug: "The disk cache's sweep keeps temporary files whatever their age."),
        .init(mutant: .diskPartialLockIgnored, rule: "DISK-2", subjects: ["imago-file-disk"],
              bug: "The partial-download file's lock is not checked: two downloads of one key write one file."),
        .init(mutant: .diskStoresBeforeValidating, rule: "DISK-3", subjects: disk,
              bug: "Bytes are stored before they are checked to be an image (by an HTTP cache layered under the pipeline, into its disk cache)."),
        .init(mutant: .diskEvictsOnlyInSweep, rule: "DISK-4", subjects: disk,
              bug: "The disk cache evicts only in its periodic sweep, not after each write."),
        .init(mutant: .fetchCachedDownloadIsDiskHit, rule: "FETCH-1", subjects: disk,
              bug: "A download to file renamed into the disk cache is shown as a disk hit (the model takes the origin from where the bytes are now)."),
        .init(mutant: .fetchFileAlsoBuffersBody, rule: "FETCH-2", subjects: ["imago-file-none"],
              bug: "Download to file also keeps every chunk in memory until the end."),
        .init(mutant: .fetchStreamDropsRestAfterHeader, rule: "FETCH-3", subjects: ["imago-stream-none"],
              bug: "A streaming decode starts at the header and drops the rest of the piece the header ended in."),
        .init(mutant: .fetchStreamKeepsBody, rule: "FETCH-4", subjects: ["imago-stream-none"],
              bug: "A streaming decode also keeps every piece it decoded (for a retry) until the load ends."),
        .init(mutant: .fetchResumeDropsIfRange, rule: "FETCH-5", subjects: ["imago-file-none"],
              bug: "A header filter between the pipeline and the network passes Range but drops If-Range, so a resumed download is no longer tied to the representation it continues."),
        .init(mutant: .previewIgnoresInterval, rule: "PREVIEW-1", subjects: ["imago-stream-none"],
              bug: "Previews are published for every completed scan, whatever the preview interval (the interval asked for never reaches the pipeline)."),
        .init(mutant: .httpStoresNoStore, rule: "HTTP-1", subjects: disk,
              bug: "no-store responses are written to the disk cache (a transport tidying Cache-Control loses no-store)."),
        .init(mutant: .httpStaleServedFresh, rule: "HTTP-2", subjects: disk,
              bug: "A stored response is always fresh (the cache policy ignores freshness although the loader says it honours it)."),
        .init(mutant: .httpJudgesDecodedLength, rule: "HTTP-3", subjects: bothStrategies,
              bug: "Truncation is judged on the decoded bytes against the encoded Content-Length."),
    ]
}
