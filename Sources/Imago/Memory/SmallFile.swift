#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the small text files of /proc and cgroupfs with plain POSIX calls.
///
/// Why not Foundation: the callers want the errno of a failure to explain it, the pressure
/// watcher rereads files on its own thread for every event, and a file in a (test or hostile)
/// tree that is a FIFO must not stall the caller — so the file is opened non-blocking and
/// anything but a regular file is refused. procfs and kernfs files are regular files.
enum SmallFile {
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// ENOENT or ENOTDIR: the file is not there, often a normal answer (no swap accounting,
        /// a root cgroup without `memory.max`).
        case missing
        case unreadable(errno: Int32)
        case notRegularFile
        case tooLarge

        var description: String {
            switch self {
            case .missing: return "missing"
            case .unreadable(let code): return "unreadable (\(String(cString: strerror(code))))"
            case .notRegularFile: return "not a regular file"
            case .tooLarge: return "larger than \(SmallFile.byteLimit) bytes"
            }
        }
    }

    /// Largest file read (1 MiB): mountinfo on a busy container host is tens of KiB.
    static let byteLimit = 1 << 20

    static func read(_ path: String) -> Result<String, Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(failure(errno)) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .failure(failure(errno)) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return .failure(.notRegularFile) }
        return readAll(fd)
    }

    /// Reads `fd` from offset 0 to its end (for descriptors kept open, such as memory.events).
    static func reread(_ fd: Int32) -> Result<String, Failure> {
        guard lseek(fd, 0, SEEK_SET) >= 0 else { return .failure(failure(errno)) }
        return readAll(fd)
    }

    private static func readAll(_ fd: Int32) -> Result<String, Failure> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(failure(errno))
            }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > byteLimit { return .failure(.tooLarge) }
        }
        return .success(String(decoding: bytes, as: UTF8.self))
    }

    /// Writes `text` in one `write` call, as cgroup control files require; returns errno on failure.
    static func write(_ text: String, to fd: Int32) -> Int32? {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { posixWrite(fd, $0.baseAddress, $0.count) }
        return written == bytes.count ? nil : (written < 0 ? errno : EIO)
    }

    /// Whether `path` names an existing file or directory.
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// `path` under `root`: `join("/tmp/t", "/proc/self/cgroup")` is "/tmp/t/proc/self/cgroup";
    /// a root of "/" leaves an absolute path as it is (and makes a relative one absolute); a
    /// root of "" leaves any path as it is.
    static func join(_ root: String, _ path: String) -> String {
        var base = root
        while base.hasSuffix("/") { base.removeLast() }
        let absolute = path.hasPrefix("/") ? path : "/" + path
        return base.isEmpty ? (root.isEmpty ? path : absolute) : base + absolute
    }

    private static func failure(_ code: Int32) -> Failure {
        code == ENOENT || code == ENOTDIR ? .missing : .unreadable(errno: code)
    }
}

// The C library's read and write, reachable under names the members above do not shadow.
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}
