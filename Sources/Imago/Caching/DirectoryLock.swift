import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State kept under a `DirectoryLock` that mirrors the directory: it records which change
/// generation it reflects, so it is rebuilt when another process has changed the directory.
protocol DirectoryMirror {
    /// The directory generation this state reflects; nil when it must be rebuilt.
    var syncedGeneration: UInt64? { get set }
}

/// Mutual exclusion for every change to a cache directory's set of entries, across threads
/// (a mutex) and processes (`flock` on the directory's `.lock` file; `flock` alone would not
/// exclude two threads sharing one open file description).
///
/// The lock file also holds a 64-bit change generation. Every locked section that renames or
/// removes an entry bumps it, so a process can tell, for the price of one 8-byte `pread`,
/// whether its in-memory mirror of the directory is still exact or must be re-listed.
final class DirectoryLock<State: DirectoryMirror>: Sendable {
    /// What a locked section sees and reports.
    struct Session {
        /// The generation found on entering the section.
        let generation: UInt64
        /// Set when the section changed the directory's entries.
        var didChangeDirectory = false
    }

    /// The open lock file, and which file it is: when the path names another file (or none),
    /// the directory was removed (and perhaps made again) under the cache.
    private struct LockFile {
        var fd: Int32
        var device: UInt64
        var inode: UInt64
    }

    private struct Guarded {
        var state: State
        var file: LockFile
    }

    private let path: String
    private let guarded: Mutex<Guarded>

    init(lockFile path: String, state: sending State) throws {
        self.path = path
        let file = try Self.open(path)
        self.guarded = Mutex(Guarded(state: state, file: file))
    }

    private static func open(_ path: String) throws -> LockFile {
        let fd = try DiskFileIO.openFile(path, O_RDWR | O_CREAT)
        let info = try DiskFileIO.fileStatus(fd, path: path)
        reserveGeneration(fd)
        return LockFile(fd: fd, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Gives a new (empty) lock file its 8 generation bytes now, under the lock: a bump then
    /// overwrites them in place and never needs a new block, so a full disk cannot fail a
    /// section after its renames were done (a store would report a failure for an entry it had
    /// published, its source file already moved away). Best effort: a disk already full leaves
    /// the file empty, as before.
    private static func reserveGeneration(_ fd: Int32) {
        while flock(fd, LOCK_EX) != 0 { if errno != EINTR { return } }
        defer { _ = flock(fd, LOCK_UN) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size < 8 else { return }
        var zero: UInt64 = 0
        _ = pwrite(fd, &zero, 8, 0)
    }

    deinit { guarded.withLock { close($0.file.fd) } }

    /// Makes the directory and its lock file again when they were removed under the cache (or
    /// replaced), so the cache goes on storing, excluding other processes through the same lock
    /// file they will find. The mirror is rebuilt from the new directory. A no-op (one `stat`)
    /// while the lock file is where it was.
    func recreateIfRemoved() throws {
        try guarded.withLock { try reopenIfMoved(&$0) }
    }

    private func reopenIfMoved(_ guarded: inout Guarded) throws {
        var info = stat()
        if stat(path, &info) == 0, UInt64(info.st_dev) == guarded.file.device, UInt64(info.st_ino) == guarded.file.inode { return }
        try DiskFileIO.createDirectory((path as NSString).deletingLastPathComponent)
        let reopened = try Self.open(path)
        close(guarded.file.fd)
        guarded.file = reopened
        guarded.state.syncedGeneration = nil
    }

    /// Runs `body` holding both locks. When it reports a change, the generation is bumped; if it
    /// throws, the mirror is marked for a rebuild since it may be half-updated.
    func withLock<R: Sendable>(_ body: (inout State, inout Session) throws -> R) throws -> R {
        try guarded.withLock { (guarded: inout Guarded) throws -> R in
            try reopenIfMoved(&guarded)
            let fd = guarded.file.fd
            while flock(fd, LOCK_EX) != 0 {
                if errno != EINTR { throw DiskFileIO.error("flock", path) }
            }
            defer { _ = flock(fd, LOCK_UN) }
            var session = Session(generation: Self.readGeneration(fd))
            do {
                let result = try body(&guarded.state, &session)
                try finish(session, &guarded.state, fd: fd, failed: false)
                return result
            } catch {
                try? finish(session, &guarded.state, fd: fd, failed: true)
                throw error
            }
        }
    }

    private func finish(_ session: Session, _ state: inout State, fd: Int32, failed: Bool) throws {
        if session.didChangeDirectory {
            let next = session.generation &+ 1
            var bytes = next.littleEndian
            let written = pwrite(fd, &bytes, 8, 0)
            guard written == 8 else {
                state.syncedGeneration = nil
                throw DiskFileIO.error("pwrite", path)
            }
            // The mirror follows the change only if it was exact when the section started
            // (or the section re-listed); otherwise it must still be rebuilt next time.
            let wasSynced = state.syncedGeneration == session.generation
            state.syncedGeneration = !failed && wasSynced ? next : nil
        } else if failed {
            state.syncedGeneration = nil
        }
    }

    private static func readGeneration(_ fd: Int32) -> UInt64 {
        var bytes: UInt64 = 0
        return pread(fd, &bytes, 8, 0) == 8 ? UInt64(littleEndian: bytes) : 0
    }
}
