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

    private let fd: Int32
    private let path: String
    private let state: Mutex<State>

    init(lockFile path: String, state: sending State) throws {
        self.fd = try DiskFileIO.openFile(path, O_RDWR | O_CREAT)
        self.path = path
        self.state = Mutex(state)
        reserveGeneration()
    }

    /// Gives a new (empty) lock file its 8 generation bytes now, under the lock: a bump then
    /// overwrites them in place and never needs a new block, so a full disk cannot fail a
    /// section after its renames were done (a store would report a failure for an entry it had
    /// published, its source file already moved away). Best effort: a disk already full leaves
    /// the file empty, as before.
    private func reserveGeneration() {
        while flock(fd, LOCK_EX) != 0 { if errno != EINTR { return } }
        defer { _ = flock(fd, LOCK_UN) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size < 8 else { return }
        var zero: UInt64 = 0
        _ = pwrite(fd, &zero, 8, 0)
    }

    deinit { close(fd) }

    /// Runs `body` holding both locks. When it reports a change, the generation is bumped; if it
    /// throws, the mirror is marked for a rebuild since it may be half-updated.
    func withLock<R: Sendable>(_ body: (inout State, inout Session) throws -> R) throws -> R {
        try state.withLock { (state: inout State) throws -> R in
            while flock(fd, LOCK_EX) != 0 {
                if errno != EINTR { throw DiskFileIO.error("flock", path) }
            }
            defer { _ = flock(fd, LOCK_UN) }
            var session = Session(generation: readGeneration())
            do {
                let result = try body(&state, &session)
                try finish(session, &state, failed: false)
                return result
            } catch {
                try? finish(session, &state, failed: true)
                throw error
            }
        }
    }

    private func finish(_ session: Session, _ state: inout State, failed: Bool) throws {
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

    private func readGeneration() -> UInt64 {
        var bytes: UInt64 = 0
        return pread(fd, &bytes, 8, 0) == 8 ? UInt64(littleEndian: bytes) : 0
    }
}
