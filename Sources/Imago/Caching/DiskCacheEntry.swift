import Foundation

extension DiskCache {
    /// The HTTP validators kept with an entry, for conditional revalidation
    /// (`If-None-Match` / `If-Modified-Since`) once the entry is stale.
    public struct Metadata: Sendable, Equatable, Codable {
        /// The response's `ETag`, verbatim (default nil).
        public var etag: String?
        /// The response's `Last-Modified`, verbatim (default nil).
        public var lastModified: String?

        public init(etag: String? = nil, lastModified: String? = nil) {
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    /// A cache hit. `url` names a plain file holding exactly the original encoded bytes, so a
    /// decoder can stream it (`ImageDecoder.decode(contentsOfFile:)`) without loading it whole.
    ///
    /// The file may be evicted or replaced by another writer after the lookup; opening it then
    /// fails, and the caller treats that as a miss. Once opened, the bytes stay readable.
    public struct Entry: Sendable {
        public let key: String
        /// The payload file: the stored bytes, nothing else.
        public let url: URL
        /// Size of the payload in bytes.
        public let byteCount: Int
        public let metadata: Metadata
        /// When the entry was stored or last revalidated (`refresh`), by the cache's clock.
        public let storedAt: Date
        /// True when a time-to-live is configured and `storedAt` is older than it: the bytes
        /// are still usable, but should be revalidated with `metadata`'s validators.
        public let isStale: Bool

        /// Reads the whole payload into memory. Throws if the file is gone or no longer has
        /// `byteCount` bytes (evicted or replaced since the lookup).
        public func data() throws -> Data {
            let data = try Data(contentsOf: url)
            guard data.count == byteCount else {
                throw DiskCacheError(operation: "read (entry changed since lookup)", path: url.path, code: ESTALE)
            }
            return data
        }
    }
}

/// What a sidecar file holds. JSON, versioned, written before its payload becomes visible.
///
/// `payloadInode` ties the sidecar to one specific payload file: a rename keeps a file's inode,
/// so a sidecar describes exactly the payload it was written with. A payload whose inode or size
/// disagrees with its sidecar is never served. (Copying a cache directory elsewhere changes every
/// inode, which makes the copy's entries misses: they are dropped, not misread.)
struct DiskCacheSidecar: Codable, Equatable {
    static let currentVersion = 1

    var version = currentVersion
    var key: String
    var byteCount: Int
    var payloadInode: UInt64
    /// Seconds since 1970.
    var storedAt: Double
    var etag: String?
    var lastModified: String?

    init(key: String, byteCount: Int, payloadInode: UInt64, storedAt: Date, metadata: DiskCache.Metadata) {
        self.key = key
        self.byteCount = byteCount
        self.payloadInode = payloadInode
        self.storedAt = storedAt.timeIntervalSince1970
        self.etag = metadata.etag
        self.lastModified = metadata.lastModified
    }

    var metadata: DiskCache.Metadata { .init(etag: etag, lastModified: lastModified) }
    var storedDate: Date { Date(timeIntervalSince1970: storedAt) }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// The sidecar in `data`, or nil when it is unreadable or of another version.
    static func decode(_ data: Data) -> DiskCacheSidecar? {
        guard let sidecar = try? JSONDecoder().decode(DiskCacheSidecar.self, from: data),
              sidecar.version == currentVersion
        else { return nil }
        return sidecar
    }

    /// Whether this sidecar describes the payload file with status `payload`.
    func describes(_ payload: stat) -> Bool {
        UInt64(payload.st_ino) == payloadInode && Int(payload.st_size) == byteCount
            && (payload.st_mode & S_IFMT) == S_IFREG
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
