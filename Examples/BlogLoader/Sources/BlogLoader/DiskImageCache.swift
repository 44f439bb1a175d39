import Crypto
import Foundation

/// Original image bytes in a directory, one file per URL named by the SHA-256 of the URL.
/// Small files, written and read on the main actor.
@MainActor
public final class DiskImageCache {
    public let directory: URL

    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    public func fileURL(for url: URL) -> URL {
        let digest = SHA256.hash(data: Data(url.absoluteString.utf8))
        return directory.appendingPathComponent(digest.map { String(format: "%02x", $0) }.joined())
    }

    /// Where `store` writes before renaming, so a reader never sees half a file.
    public func temporaryFileURL(for url: URL) -> URL { fileURL(for: url).appendingPathExtension("tmp") }

    public func data(for url: URL) -> Data? { try? Data(contentsOf: fileURL(for: url)) }

    public func store(_ data: Data, for url: URL) {
        let destination = fileURL(for: url)
        let temporary = temporaryFileURL(for: url)
        do {
            try data.write(to: temporary)
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.moveItem(at: temporary, to: destination)
        } catch {
            try? FileManager.default.removeItem(at: temporary)   // a cache write may fail; the load does not
        }
    }

    public func removeData(for url: URL) { try? FileManager.default.removeItem(at: fileURL(for: url)) }

    /// The complete entries (files being written end in `.tmp`).
    public func entries() -> [URL] {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.pathExtension != "tmp" }
    }
}
