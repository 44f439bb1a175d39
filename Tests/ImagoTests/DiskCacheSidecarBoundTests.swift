import Foundation
import Testing
@testable import Imago

/// `DiskCacheSidecar.encodedSizeBound` lets a store skip encoding a sidecar just to measure it:
/// it must never be below the real encoded size, whatever the strings hold, or an entry could
/// pass `fits` and take the cache past its size limit.
@Suite struct DiskCacheSidecarBoundTests {
    /// Strings JSON writes longest (control characters as `\u00XX`, quotes and backslashes,
    /// slashes, multi-byte UTF-8) and plain ones, in every field that takes text.
    static let texts = ["", "plain", "\u{01}\u{02}\u{1F}\u{7F}", "\"\\/\"", "/a/b/c?d=e&f=g", "ü€𝄞", String(repeating: "\u{0}", count: 300)]

    @Test(arguments: texts)
    func theBoundIsNeverBelowTheEncodedSize(_ text: String) throws {
        let headers = [text: text, "cache-control": "max-age=60, \(text)", "etag-\(text)": "\"\(text)\""]
        let metadata = DiskCache.Metadata(etag: "\"\(text)\"", lastModified: text, responseHeaders: headers,
                                          varyingRequestHeaders: [text: text, "accept": text],
                                          requestedAt: Date(timeIntervalSince1970: 1_795_816_051.493_904_6),
                                          receivedAt: Date(timeIntervalSince1970: -1.000_000_000_000_1e15),
                                          failureStatus: Int.min)
        let key = "https://example.com/\(text)?\(text)"
        let widest = DiskCacheSidecar(key: key, byteCount: .max, payloadInode: .max,
                                      storedAt: Date(timeIntervalSince1970: -1.234_567_890_123_4e15), metadata: metadata)
        let encoded = try widest.encoded()
        #expect(DiskCacheSidecar.encodedSizeBound(key: key, metadata: metadata) >= encoded.count)
    }

    /// The bound only decides early: an entry it cannot vouch for is measured exactly, so one
    /// that fits with a few bytes to spare is still stored.
    @Test func anEntryNearTheLimitIsMeasuredExactly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sidecar-bound-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 4096, synchronizesWrites: false))
        let metadata = DiskCache.Metadata(etag: "\"v1\"")
        let bound = DiskCacheSidecar.encodedSizeBound(key: "k", metadata: metadata)
        let exact = try DiskCacheSidecar(key: "k", byteCount: 4096, payloadInode: .max, storedAt: Date(),
                                         metadata: metadata).encoded().count
        // Past the bound's allowance, within the exact one.
        let byteCount = 4096 - 64 - exact - 8
        #expect(byteCount + bound + 64 > 4096)
        #expect(try cache.store(Data(repeating: 7, count: byteCount), forKey: "k", metadata: metadata))
        #expect(cache.totalSize <= 4096)
    }
}
