import Foundation

/// A revalidation that ran in the background after a `stale-while-revalidate` entry served a
/// load (`DiskCacheOutcome.staleRevalidating`), as `ImagePipeline.waitForBackgroundRevalidations()`
/// reports it.
public struct BackgroundRevalidation: Sendable, Equatable, CustomStringConvertible {
    /// The URL it revalidated.
    public let url: URL
    /// What the disk cache did with the server's answer: `.revalidated` after a 304, `.stored`
    /// or `.replaced` after a 200, `.notStored(reason)` when the answer may not be kept. Nil when
    /// the revalidation failed (`failure`).
    public let diskCache: DiskCacheOutcome?
    /// Why it failed (the server's error, an unreachable origin, `.cancelled`), or nil. The
    /// stale entry is then left as it was: it still serves within its window.
    public let failure: ImageLoadingError?

    /// The outcome (`revalidated`, `replaced`, …) or `failed(REASON)`.
    public var description: String {
        if let failure { return "failed(\(failure))" }
        return diskCache.map(\.description) ?? "none"
    }
}
