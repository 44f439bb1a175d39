import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file-system call inside `DiskCache`, with the call, the path and `errno`.
public struct DiskCacheError: Error, CustomStringConvertible, Equatable {
    /// The system call or step that failed, e.g. `rename`, `fsync`, `open`.
    public let operation: String
    /// The file or directory it was called on.
    public let path: String
    /// The `errno` value it failed with (`ESTALE` when an entry changed after its lookup).
    public let code: Int32

    /// `disk cache: OPERATION PATH: strerror (errno N)`, one line.
    public var description: String {
        "disk cache: \(operation) \(path): \(String(cString: strerror(code))) (errno \(code))"
    }

    /// What went wrong in a few words, e.g. `permission denied`, `not a directory`, `no space
    /// left on device`: the system's message for `code`, lowercased as the middle of a sentence.
    public var reason: String {
        let message = String(cString: strerror(code))
        return message.prefix(1).lowercased() + message.dropFirst()
    }
}

/// The POSIX calls the disk cache is built from. Thin wrappers that retry on EINTR and turn
/// failures into `DiskCacheError`; Foundation's file APIs hide the exact calls (rename vs copy,
/// fsync, futimens) that the cache's atomicity argument depends on.
enum DiskFileIO {
    /// Chunk size for copying a file across file systems: never the whole file in memory.
    static let copyChunkSize = 1 << 20
    /// `UTIME_OMIT` from <sys/stat.h> (a macro Swift does not import): leave that time alone.
    private static let utimeOmit = (1 << 30) - 2

    static func error(_ operation: String, _ path: String, _ code: Int32 = errno) -> DiskCacheError {
        DiskCacheError(operation: operation, path: path, code: code)
    }

    /// Metadata of `path` (not following symlinks), or nil when it does not exist.
    static func status(_ path: String) throws -> stat? {
        var info = stat()
        if lstat(path, &info) == 0 { return info }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw error("lstat", path)
    }

    static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
        while true {
            let fd = open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw error("open", path) }
        }
    }

    /// Creates the directory `path` and any missing parents (`mkdir -p`); an existing directory
    /// (or a symlink to one) is fine, anything else in the way fails with `ENOTDIR`.
    static func createDirectory(_ path: String) throws {
        if mkdir(path, 0o755) == 0 { return }
        switch errno {
        case EEXIST:
            break
        case ENOENT:
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { throw error("mkdir", path) }
            try createDirectory(parent)
            if mkdir(path, 0o755) == 0 { return }
            guard errno == EEXIST else { throw error("mkdir", path) }
        default:
            throw error("mkdir", path)
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw error("stat", path) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw error("mkdir", path, ENOTDIR) }
    }

    /// Throws unless this process may create and remove files in the directory `path`
    /// (`access(W_OK | X_OK)`: permissions and a read-only file system).
    static func checkWritable(_ path: String) throws {
        guard access(path, W_OK | X_OK) == 0 else { throw error("access", path) }
    }

    /// Creates a new, empty temporary file `<directory>/.tmp-<uuid>` for writing.
    static func createTemporaryFile(in directory: String) throws -> (fd: Int32, path: String) {
        let path = directory + "/" + DiskCacheNaming.temporaryPrefix + UUID().uuidString
        return (try openFile(path, O_WRONLY | O_CREAT | O_EXCL), path)
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw error("write", path)
            }
            offset += written
        }
    }

    static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        try data.withUnsafeBytes { try writeAll(fd, $0, path: path) }
    }

    /// Copies `source` into `fd` in `copyChunkSize` pieces; returns the byte count.
    static func copyContents(of source: String, to fd: Int32, path: String) throws -> Int {
        let input = try openFile(source, O_RDONLY)
        defer { close(input) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: copyChunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let count = read(input, buffer.baseAddress!, copyChunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw error("read", source)
            }
            if count == 0 { return total }
            try writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<count]), path: path)
            total += count
        }
    }

    static func sync(_ fd: Int32, path: String) throws {
        while fsync(fd) != 0 {
            if errno != EINTR { throw error("fsync", path) }
        }
    }

    static func fileStatus(_ fd: Int32, path: String) throws -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw error("fstat", path) }
        return info
    }

    /// Sets the modification time (the cache's record of the last access), leaving atime alone.
    static func setModificationTime(_ fd: Int32, _ date: Date, path: String) throws {
        var times = [timespec(tv_sec: 0, tv_nsec: utimeOmit), timespec(date)]
        guard futimens(fd, &times) == 0 else { throw error("futimens", path) }
    }

    /// Like `setModificationTime(_:_:path:)` by path; false when the file no longer exists.
    static func setModificationTime(path: String, _ date: Date) throws -> Bool {
        var times = [timespec(tv_sec: 0, tv_nsec: utimeOmit), timespec(date)]
        if utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 { return true }
        if errno == ENOENT { return false }
        throw error("utimensat", path)
    }

    static func rename(_ from: String, to: String) throws {
        #if canImport(Glibc)
        let result = Glibc.rename(from, to)
        #else
        let result = Darwin.rename(from, to)
        #endif
        guard result == 0 else { throw error("rename", from + " -> " + to) }
    }

    /// Removes `path`; true when it existed.
    @discardableResult
    static func remove(_ path: String) throws -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw error("unlink", path)
    }

    /// Best-effort removal for cleanup paths, where the original error is what matters.
    static func removeQuietly(_ path: String) {
        _ = unlink(path)
    }

    /// The whole of a small file (a sidecar), or nil when it does not exist.
    static func readSmallFile(_ path: String, limit: Int = 1 << 20) throws -> Data? {
        let fd: Int32
        do { fd = try openFile(path, O_RDONLY) } catch let failure as DiskCacheError where failure.code == ENOENT {
            return nil
        }
        defer { close(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while data.count <= limit {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw error("read", path)
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[0..<count])
        }
        throw error("read", path, EFBIG)
    }

    /// Names in `directory` with their `lstat`, via `fstatat` on the open directory (no path
    /// building or lookup from the root per file). Files that vanish meanwhile are skipped.
    static func listDirectoryWithStatus(_ directory: String) throws -> [(name: String, info: stat)] {
        guard let stream = opendir(directory) else { throw error("opendir", directory) }
        defer { closedir(stream) }
        let fd = dirfd(stream)
        var result: [(name: String, info: stat)] = []
        while let entry = readdir(stream) {
            var info = stat()
            let (name, found) = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { raw -> (String, Bool) in
                    if raw[0] == 0x2e && (raw[1] == 0 || (raw[1] == 0x2e && raw[2] == 0)) { return ("", false) }
                    return (String(cString: raw), fstatat(fd, raw, &info, AT_SYMLINK_NOFOLLOW) == 0)
                }
            }
            if found { result.append((name, info)) }
        }
        return result
    }

    /// Names in `directory` (without "." and "..").
    static func listDirectory(_ directory: String) throws -> [String] {
        guard let stream = opendir(directory) else { throw error("opendir", directory) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

extension timespec {
    init(_ date: Date) {
        let interval = date.timeIntervalSince1970
        var seconds = interval.rounded(.down)
        var nanoseconds = ((interval - seconds) * 1e9).rounded()
        if nanoseconds >= 1e9 { seconds += 1; nanoseconds -= 1e9 }
        self.init(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
    }

    /// Nanoseconds since 1970, the cache's exact, comparable form of a file time.
    var nanosecondsSince1970: Int64 { Int64(tv_sec) * 1_000_000_000 + Int64(tv_nsec) }
}
