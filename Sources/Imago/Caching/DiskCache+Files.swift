import Foundation

/// The files the disk cache hands out to be filled elsewhere (a download, a streamed body's
/// copy, a partial kept between loads): in its directory, so moving one in is a rename, and
/// named by the cache, so whatever a killed process leaves behind is swept with the cache's own
/// leftovers after `Configuration.temporaryFileGracePeriod`. Nothing outside the cache needs to
/// know how it names files.
extension DiskCache {
    /// The two files of a partial download: the bytes, and the record that vouches for them.
    public struct PartialDownloadFiles: Sendable, Hashable {
        /// The partial body.
        public let file: URL
        /// What vouches for it (source URL, validator, length), written beside it.
        public let record: URL

        /// Names the two files; nothing is created (``DiskCache/partialDownloadFiles(forKey:)`` is
        /// how a cache hands them out).
        public init(file: URL, record: URL) {
            self.file = file
            self.record = record
        }
    }

    /// A fresh path for a body that may be stored into this cache (`store(fileAt:)`). The
    /// directory is made again first if it was removed under the cache (when that fails, so
    /// will writing the file: the caller falls back as for any write failure).
    public func makeTemporaryFileURL() -> URL {
        try? lock.recreateIfRemoved()
        return directory.appendingPathComponent(DiskCacheNaming.handedOutPrefix + UUID().uuidString)
    }

    /// Where the partial download of `key` is kept between loads (one per key).
    public func partialDownloadFiles(forKey key: String) -> PartialDownloadFiles {
        try? lock.recreateIfRemoved()
        let name = DiskCacheNaming.partialDownloadPrefix + DiskCacheNaming.hash(forKey: key)
        return PartialDownloadFiles(file: directory.appendingPathComponent(name),
                                    record: directory.appendingPathComponent(name + DiskCacheNaming.partialRecordSuffix))
    }
}
