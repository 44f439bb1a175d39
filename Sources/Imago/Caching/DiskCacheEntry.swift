import Foundation

extension DiskCache {
    /// What is kept of the HTTP response with an entry: its validators, for conditional
    /// revalidation (`If-None-Match` / `If-Modified-Since`), and what `HTTPCachePolicy` needs to
    /// judge freshness and `Vary` after a restart. Written with the entry, in the sidecar, as
    /// crash-safely as the entry itself; `refresh` skips the fsync (a crash right after one can
    /// cost the entry, never misdescribe it).
    public struct Metadata: Sendable, Equatable, Codable {
        /// The response's `ETag`, verbatim (default nil).
        public var etag: String?
        /// The response's `Last-Modified`, verbatim (default nil).
        public var lastModified: String?
        /// The response header fields that decide reuse, names lowercased (`cache-control`,
        /// `expires`, `date`, `age`, `vary`...). Default empty.
        public var responseHeaders: [String: String]
        /// The values, as sent, of the request header fields the response's `Vary` names (absent
        /// ones left out), lowercased names. Default empty.
        public var varyingRequestHeaders: [String: String]
        /// When the request that got the response (or its last 304) was sent, by the storing
        /// pipeline's clock. Default nil: unknown, and `Entry.storedAt` stands in.
        public var requestedAt: Date?
        /// When that response arrived, by the storing pipeline's clock. Default nil:
        /// `Entry.storedAt`.
        public var receivedAt: Date?
        /// The status of a remembered failure (404 or 410, negative caching): the entry has no
        /// payload bytes, and while fresh a load of its URL fails with `.httpStatus(failureStatus)`
        /// without a request. Default nil: the entry is an image.
        public var failureStatus: Int?

        /// Metadata with the given fields, each defaulting to unknown (nil) or none (empty).
        public init(etag: String? = nil, lastModified: String? = nil, responseHeaders: [String: String] = [:],
                    varyingRequestHeaders: [String: String] = [:], requestedAt: Date? = nil, receivedAt: Date? = nil,
                    failureStatus: Int? = nil) {
            self.etag = etag
            self.lastModified = lastModified
            self.responseHeaders = responseHeaders
            self.varyingRequestHeaders = varyingRequestHeaders
            self.requestedAt = requestedAt
            self.receivedAt = receivedAt
            self.failureStatus = failureStatus
        }
    }

    /// A cache hit. `url` names a plain file holding exactly the original encoded bytes, so a
    /// decoder can stream it (`ImageDecoder.decode(contentsOfFile:)`) without loading it whole.
    ///
    /// The file may be evicted or replaced by another writer after the lookup; opening it then
    /// fails, and the caller treats that as a miss. Once opened, the bytes stay readable.
    public struct Entry: Sendable {
        /// The key the entry was stored under (the pipeline's `ImageRequestKey` text); the sidecar
        /// records it, so a hash collision reads as a miss.
        public let key: String
        /// The payload file: the stored bytes, nothing else.
        public let url: URL
        /// Size of the payload in bytes.
        public let byteCount: Int
        /// The HTTP facts stored with the payload, as of its store or its last `refresh` (a 304's
        /// headers).
        public let metadata: Metadata
        /// When the entry was stored or last revalidated (`refresh`), by the cache's clock.
        /// Whether it may still be used without asking the server is `HTTPCachePolicy`'s call.
        public let storedAt: Date

        /// An entry as a cache hands it out (`ImageDiskCaching.entry(forKey:)`); `url` must hold
        /// exactly `byteCount` bytes.
        public init(key: String, url: URL, byteCount: Int, metadata: Metadata, storedAt: Date) {
            self.key = key
            self.url = url
            self.byteCount = byteCount
            self.metadata = metadata
            self.storedAt = storedAt
        }

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
    // Optional, so sidecars written before they existed still read (as "unknown"), and older
    // readers ignore them: no version change was needed.
    var responseHeaders: [String: String]?
    var varyingRequestHeaders: [String: String]?
    /// Seconds since 1970.
    var requestedAt: Double?
    /// Seconds since 1970.
    var receivedAt: Double?
    /// A remembered failure's status (its payload is empty). An Imago that predates it reads
    /// such an entry as an empty image, which does not decode and is removed (CACHE-4): a
    /// refetch, never a wrong image.
    var failureStatus: Int?

    init(key: String, byteCount: Int, payloadInode: UInt64, storedAt: Date, metadata: DiskCache.Metadata) {
        self.key = key
        self.byteCount = byteCount
        self.payloadInode = payloadInode
        self.storedAt = storedAt.timeIntervalSince1970
        self.etag = metadata.etag
        self.lastModified = metadata.lastModified
        self.responseHeaders = metadata.responseHeaders.isEmpty ? nil : metadata.responseHeaders
        self.varyingRequestHeaders = metadata.varyingRequestHeaders.isEmpty ? nil : metadata.varyingRequestHeaders
        self.requestedAt = metadata.requestedAt?.timeIntervalSince1970
        self.receivedAt = metadata.receivedAt?.timeIntervalSince1970
        self.failureStatus = metadata.failureStatus
    }

    /// At least the size of any sidecar for `key` and `metadata`, without encoding one: JSON
    /// writes a UTF-8 byte of a string as at most 6 (`\u00XX`), and the field names, numbers
    /// (at most 25 characters each) and punctuation take under 512 bytes; 6 more per header.
    static func encodedSizeBound(key: String, metadata: DiskCache.Metadata) -> Int {
        var text = key.utf8.count + (metadata.etag?.utf8.count ?? 0) + (metadata.lastModified?.utf8.count ?? 0)
        var fields = 0
        for (name, value) in metadata.responseHeaders { text += name.utf8.count + value.utf8.count; fields += 1 }
        for (name, value) in metadata.varyingRequestHeaders { text += name.utf8.count + value.utf8.count; fields += 1 }
        return 512 + 6 * text + 6 * fields
    }

    var metadata: DiskCache.Metadata {
        .init(etag: etag, lastModified: lastModified, responseHeaders: responseHeaders ?? [:],
              varyingRequestHeaders: varyingRequestHeaders ?? [:],
              requestedAt: requestedAt.map(Date.init(timeIntervalSince1970:)),
              receivedAt: receivedAt.map(Date.init(timeIntervalSince1970:)), failureStatus: failureStatus)
    }
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
