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

    /// Entries directly inside `directory` (0 when it is missing).
    public static func count(_ directory: URL) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path).count) ?? 0
    }
}
