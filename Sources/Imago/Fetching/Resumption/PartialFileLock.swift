import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open descriptor on a partial download, holding an exclusive `flock` on it: while a fetch
/// owns a partial, no other fetch (in this process or another) writes it. `flock` locks belong to
/// the open file description, so two opens in one process exclude each other too.
final class PartialFileLock: Sendable {
    let descriptor: Int32
    private let released = Mutex(false)

    /// Opens (creating) `path` and locks it without waiting (through `locking`, default an
    /// exclusive `flock`); nil when another fetch holds it or it cannot be opened. The name is
    /// checked to still lead to the locked file afterwards: an owner removes the name before
    /// unlocking, and a lock on that removed file would be no lock.
    init?(path: String, locking: any PartialDownloadLocking = FlockPartialDownloadLocking()) {
        for _ in 0..<3 {
            // 0644 (before the umask), as every disk cache file: a download to file becomes the
            // cache's entry by a rename, and its mode stays (it was 0600, the other strategies'
            // entries 0644).
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return nil }
            guard locking.tryLock(fd) else {
                close(fd)
                return nil
            }
            if Self.same(fd, path) {
                // Now, not when it was kept: the cache's sweep judges `.tmp-` files by their age,
                // and this one is in use again.
                _ = futimens(fd, nil)
                descriptor = fd
                return
            }
            close(fd)
        }
        return nil
    }

    /// Whether `path` names the locked file.
    func isNamed(by path: String) -> Bool { Self.same(descriptor, path) }

    private static func same(_ fd: Int32, _ path: String) -> Bool {
        var opened = stat(), named = stat()
        return fstat(fd, &opened) == 0 && stat(path, &named) == 0 && opened.st_ino == named.st_ino
            && opened.st_dev == named.st_dev
    }

    /// Bytes in the file now.
    var size: Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    /// fsync: the kept bytes are on the disk (best effort; a failure only risks the partial).
    func synchronize() { _ = fsync(descriptor) }

    /// Cuts the file to `length` bytes.
    func truncate(to length: Int) throws(FetchError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw .fileSystem("truncating a partial download: \(String(cString: strerror(errno)))")
        }
    }

    /// A handle for writing from `offset` on; closing it keeps the lock (the lock lives as long
    /// as ``descriptor``).
    func writer(at offset: Int) throws(FetchError) -> FileHandle {
        let copy = dup(descriptor)
        guard copy >= 0 else { throw .fileSystem("dup: \(String(cString: strerror(errno)))") }
        guard lseek(copy, off_t(offset), SEEK_SET) == off_t(offset) else {
            close(copy)
            throw .fileSystem("seeking a partial download: \(String(cString: strerror(errno)))")
        }
        return FileHandle(fileDescriptor: copy, closeOnDealloc: true)
    }

    /// Unlocks and closes. Idempotent.
    func release() {
        let first = released.withLock { done in defer { done = true }; return !done }
        if first { close(descriptor) }
    }

    deinit { release() }
}

/// How a fetch takes the lock on the partial-download file it is about to write: a seam for the
/// mutation harness (`make mutants`), which plants a lock that is not checked; apps have no
/// reason to replace it. Set through `ImagePipeline.Configuration.Network.partialDownloadLocking`.
@_spi(Testing) public protocol PartialDownloadLocking: Sendable {
    /// Tries once, without waiting, to lock the open file `descriptor` exclusively (the lock
    /// must end when the descriptor is closed).
    /// - Returns: whether this fetch now owns the file and may write it.
    func tryLock(_ descriptor: Int32) -> Bool
}

/// The built-in lock: `flock(LOCK_EX | LOCK_NB)`, retried on `EINTR`.
struct FlockPartialDownloadLocking: PartialDownloadLocking {
    func tryLock(_ descriptor: Int32) -> Bool {
        var locked = flock(descriptor, LOCK_EX | LOCK_NB)
        while locked != 0, errno == EINTR { locked = flock(descriptor, LOCK_EX | LOCK_NB) }
        return locked == 0
    }
}
