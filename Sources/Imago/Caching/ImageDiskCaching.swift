import Foundation

/// What `ImagePipeline` needs of its disk cache (the second level of the loading pipeline):
/// original encoded bytes by source key (`ImageSource.identity`), with the HTTP metadata that
/// decides their reuse, plus the files a download is written to before it is stored.
/// `DiskCache` is the built-in one; there is none by default
/// (`ImagePipeline.Configuration.Dependencies.diskCache` is nil). An app may pass its own, e.g.
/// one that shares a directory budget with its other files or keeps entries in a database
/// beside their payload files.
///
/// The requirements are exactly what the pipeline calls: lookup, store (bytes or a file to move
/// in), refresh after a 304, removal of an entry that does not decode, the temporary and partial
/// download files it hands out, and its size limit. Sweeps, totals and listings stay on the
/// implementing type.
///
/// Semantics the pipeline relies on (rules DISK-1..4 and CACHE-2..4 of the conformance suite):
/// - an entry becomes visible whole, with its metadata, or not at all: `entry(forKey:)` never
///   returns bytes a crash or a concurrent writer left half written (DISK-1, DISK-2);
/// - the cache holds at most `sizeLimit` bytes after every store (DISK-4), evicting what it
///   values least but never the entry just stored; a store of an entry too large on its own
///   returns false and changes nothing;
/// - leftovers of writes that never finished, including the files `makeTemporaryFileURL()` and
///   `partialDownloadFiles(forKey:)` hand out, are removed once they are old enough not to be a
///   write in flight (DISK-1).
///
/// Calls block on file I/O: the pipeline makes them off the main actor, from several threads at
/// once, and its stores on threads of its own rather than the cooperative pool's, so a slow
/// disk does not hold up other loads' decodes. Class-bound and `Sendable` for the same reasons
/// as `ImageMemoryCaching`.
public protocol ImageDiskCaching: AnyObject, Sendable {
    /// The entry for `key`, or nil on a miss. A hit counts as a use for the eviction order.
    /// `Entry.url` must name a plain file holding exactly the stored bytes: the decoder reads it
    /// directly, and a download to file is served from it once stored.
    func entry(forKey key: String) -> DiskCache.Entry?

    /// Stores `data` (a complete image, already checked to declare one: DISK-3) under `key`,
    /// replacing any previous entry.
    /// - Returns: false, storing nothing, when the entry alone would exceed `sizeLimit`.
    @discardableResult
    func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool

    /// Moves the file at `url` (a finished download, usually at a path from
    /// `makeTemporaryFileURL()`, so the move can be a rename) into the cache under `key`.
    /// - Returns: false when the entry alone would exceed `sizeLimit`; the file is then left
    ///   where it is and still belongs to the caller.
    @discardableResult
    func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool

    /// Records a successful revalidation (HTTP 304): `metadata` replaces the entry's and the
    /// entry is fresh again from now. With `revalidated` (the metadata the conditional request
    /// was made from), only an entry that still has those validators is refreshed.
    /// - Returns: false when there is no such entry.
    @discardableResult
    func refresh(forKey key: String, metadata: DiskCache.Metadata, revalidated: DiskCache.Metadata?) throws -> Bool

    /// Removes the entry for `key` (its bytes did not decode, or the server's newest answer for
    /// the URL must not be kept). Removing a missing entry is not an error.
    func removeEntry(forKey key: String) throws

    /// A fresh path, not yet created, for a body that may later be stored with
    /// `store(fileAt:forKey:metadata:)`: a download to file, a streamed body's copy.
    func makeTemporaryFileURL() -> URL

    /// Where the partial download of `key` is kept between loads (the same two paths every time
    /// for one key). The pipeline's fetches take an exclusive lock on `file` before writing it.
    func partialDownloadFiles(forKey key: String) -> DiskCache.PartialDownloadFiles

    /// Most bytes the cache holds; a download kept for resuming is bounded by it too.
    var sizeLimit: Int { get }
}

extension DiskCache: ImageDiskCaching {
    /// `configuration.sizeLimit`.
    public var sizeLimit: Int { configuration.sizeLimit }
}
