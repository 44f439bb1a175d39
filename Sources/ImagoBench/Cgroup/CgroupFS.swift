import Foundation

/// The few raw file operations cgroup control files need: writes whose errno matters (EBUSY,
/// EINVAL say different things), and removal that waits for the kernel to let go.
enum CgroupFS {
    /// Writes `text` to a control file in one write(2); nil on success, else the errno.
    static func writeControl(_ text: String, to path: String) -> Int32? {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written == bytes.count ? nil : (written < 0 ? errno : EIO)
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Attempts at removing a cgroup, and the pause between them: a cgroup whose last process
    /// has just exited stays busy until the kernel has finished tearing the process down.
    static let removalAttempts = 200
    static let removalPause: useconds_t = 10_000

    /// Removes an (otherwise empty) cgroup directory, retrying for up to about 2 s. Processes
    /// still inside are this sandbox's own (the cgroup is new and only its child joined), so
    /// they are killed by pid first. Throws if the cgroup is still there afterwards.
    static func remove(_ directory: String) throws {
        for _ in 0..<removalAttempts {
            if rmdir(directory) == 0 || errno == ENOENT { return }
            guard errno == EBUSY else { break }
            killMembers(of: directory)
            usleep(removalPause)
        }
        let reason = errorText(errno)
        if rmdir(directory) == 0 || errno == ENOENT { return }
        throw BenchError("could not remove cgroup \(directory): \(reason)")
    }

    /// SIGKILL to every process listed in the cgroup's `cgroup.procs`.
    static func killMembers(of directory: String) {
        let text = (try? String(contentsOfFile: directory + "/cgroup.procs", encoding: .utf8)) ?? ""
        for pid in text.split(separator: "\n").compactMap({ pid_t($0) }) where pid > 0 {
            kill(pid, SIGKILL)
        }
    }

    /// Removes children named `<prefix><pid>-…` whose creating bench process no longer exists
    /// (a bench killed mid-run cannot clean up after itself); a child still holding processes
    /// is left alone (rmdir refuses it).
    static func removeStaleChildren(of parent: String, prefix: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ pid_t($0) }), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { rmdir(parent + "/" + name) }
        }
    }
}
