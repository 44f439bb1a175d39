import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The small JSON file kept beside a partial download in a disk cache directory, so a later
/// process can continue it: which URL the bytes came from, the validator to send in `If-Range`,
/// how many bytes the partial holds and the complete length when known.
///
/// Crash safety: it is written to a temporary and renamed into place, and it is removed before
/// the partial is written to again. A partial without a record, or whose size differs from the
/// record's, is therefore never continued: it is dropped.
struct PartialRecord: Codable, Equatable {
    var url: String
    var validator: String
    var bytes: Int
    var total: Int?

    /// The record at `url`; nil when there is none or it cannot be read.
    static func read(_ url: URL) -> PartialRecord? {
        guard let data = try? Data(contentsOf: url, options: .uncached) else { return nil }
        return try? JSONDecoder().decode(PartialRecord.self, from: data)
    }

    /// Writes the record to `url` through `temporary` (a fresh path in the same directory) and a
    /// rename.
    func write(to url: URL, through temporary: URL) throws {
        let data = try JSONEncoder().encode(self)
        do {
            try data.write(to: temporary)
            guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Whether this record describes a partial of `fileSize` bytes from `sourceURL` that may be
    /// continued within `limit` bytes.
    func matches(sourceURL: URL, fileSize: Int, limit: Int) -> Bool {
        url == sourceURL.absoluteString && bytes > 0 && bytes == fileSize && bytes <= limit && !validator.isEmpty
            && (total.map { bytes < $0 && $0 <= limit } ?? true)
    }
}
