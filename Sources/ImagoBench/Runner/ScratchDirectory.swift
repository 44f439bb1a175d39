import Foundation

/// A private temporary directory for one scenario (download temporaries, disk caches), removed
/// when the value is released, so leftover files can be counted exactly.
public final class ScratchDirectory: Sendable {
    public let url: URL

    public init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-bench-\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Removes `directory` (one made inside this one) and flushes pending writes (`sync`; Glibc's
    /// Swift module has no `syncfs`, and on a bench machine any other pending write belongs before
    /// the next timed variant too): the removal's metadata, and whatever a variant wrote without
    /// `fsync`, are written now, untimed, instead of by the kernel's writeback threads while the
    /// next variant is timed (on 2 cores that moved the next variant's time, see measurements.md).
    public func remove(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
        sync()
    }

    /// Entries directly inside `directory` (0 when it is missing).
    public static func count(_ directory: URL) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path).count) ?? 0
    }
}
