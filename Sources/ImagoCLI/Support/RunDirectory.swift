import Foundation

/// A directory of one command run's own under the system temporary directory
/// (`imago-run-<pid>-<uuid>`), for files that must not outlive the run.
struct RunDirectory: Sendable {
    let url: URL

    static func make() throws -> RunDirectory {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-run-\(getpid())-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return RunDirectory(url: url)
    }

    /// Waits (polling, at most `timeout`) until nothing is left in the directory.
    func waitUntilEmpty(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        repeat {
            if ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).isEmpty { return true }
            try? await Task.sleep(for: .milliseconds(5))
        } while ContinuousClock.now < deadline
        return false
    }

    /// Removes the directory and whatever is still in it.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
