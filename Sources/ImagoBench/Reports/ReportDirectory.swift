import Foundation

/// Where a run's files go: `<root>/<UTC timestamp>/` with results.csv, samples.csv, report.md and the SVG
/// charts, and `<root>/latest` re-pointed at it.
public enum ReportDirectory {
    /// "2025-01-31T14-05-09Z": sortable, and free of the colons some file systems refuse.
    public static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH-mm-ss'Z'"
        return formatter.string(from: date)
    }

    /// Writes `files` (name → contents) into a new run directory and updates `latest`;
    /// returns the run directory.
    @discardableResult
    public static func write(root: URL, started: Date, files: [(name: String, contents: String)]) throws -> URL {
        let run = root.appendingPathComponent(timestamp(started), isDirectory: true)
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        for file in files {
            try file.contents.write(to: run.appendingPathComponent(file.name), atomically: true, encoding: .utf8)
        }
        let latest = root.appendingPathComponent("latest")
        try? FileManager.default.removeItem(at: latest)
        try FileManager.default.createSymbolicLink(atPath: latest.path, withDestinationPath: run.lastPathComponent)
        return run
    }
}
