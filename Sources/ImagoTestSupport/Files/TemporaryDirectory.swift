import Foundation

/// A fresh directory under the system temporary directory, for one test.
public enum TemporaryDirectory {
    /// Makes `<prefix>-<UUID>`; the caller removes it.
    public static func make(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Makes `<prefix>-<UUID>`, runs `body` with it and removes it however `body` ends.
    public static func with<Result>(_ prefix: String, _ body: (URL) async throws -> Result) async throws -> Result {
        let url = try make(prefix)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url)
    }
}
