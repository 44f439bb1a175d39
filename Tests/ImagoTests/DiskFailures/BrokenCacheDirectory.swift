import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How a test makes a disk cache's directory fail under a running pipeline, and how it makes it
/// work again.
enum DiskFault: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The directory is a 64 KiB tmpfs (mounted by the test) and the body is larger: writes
    /// fail with ENOSPC. "Space returns": remounted at 4 MiB.
    case noSpace
    /// The directory becomes read-only mid-load: a read-only bind mount over it as root (root
    /// ignores `chmod`), `chmod 555` otherwise. Repaired by unmounting / `chmod 755`.
    case readOnly
    /// The directory is removed mid-load. Not repaired: the cache makes it again at its next write.
    case removed

    var description: String { rawValue }
}

/// A scratch directory holding a disk cache's directory (`cache`) and the pipeline's own
/// temporary directory (`downloads`), with one `DiskFault` staged on `cache`. `tearDown()`
/// unmounts whatever the fault mounted and removes everything.
final class BrokenCacheDirectory: Sendable {
    let fault: DiskFault
    let scratch: URL
    var cache: URL { scratch.appendingPathComponent("cache") }
    var downloads: URL { scratch.appendingPathComponent("downloads") }

    /// Reason shown when a fault needs mounting and this process may not mount.
    static let mountingNotAllowed = "mounting a tmpfs needs root (CAP_SYS_ADMIN) in a mount namespace that allows it"

    /// Whether this process may mount a tmpfs, probed once by mounting and unmounting one.
    static let canMount: Bool = {
        guard geteuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("imago-mount-probe-\(UUID())")
        defer { try? FileManager.default.removeItem(at: probe) }
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil,
              Glibc.mount("tmpfs", probe.path, "tmpfs", 0, "size=64k") == 0
        else { return false }
        return umount(probe.path) == 0
    }()

    /// Makes the directories; `.noSpace` mounts its 64 KiB tmpfs on `cache` now.
    init(_ fault: DiskFault) throws {
        self.fault = fault
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imago-disk-fault-\(UUID())")
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("cache"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("downloads"), withIntermediateDirectories: true)
        if fault == .noSpace { try Self.mountTmpfs(cache, options: "size=64k") }
    }

    /// Breaks the directory (mid-load). `.noSpace` is already too small.
    func breakDirectory() throws {
        switch fault {
        case .noSpace:
            break
        case .readOnly where geteuid() == 0:
            try Self.check(Glibc.mount(cache.path, cache.path, nil, UInt(MS_BIND), nil), "bind mount")
            try Self.check(Glibc.mount(nil, cache.path, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil), "read-only remount")
        case .readOnly:
            try Self.check(chmod(cache.path, 0o555), "chmod 555")
        case .removed:
            try FileManager.default.removeItem(at: cache)
        }
    }

    /// Makes the directory usable again (space returns, write permission returns, the
    /// directory is back).
    func repair() throws {
        switch fault {
        case .noSpace:
            try Self.check(Glibc.mount(nil, cache.path, nil, UInt(MS_REMOUNT), "size=4m"), "remount size=4m")
        case .readOnly where geteuid() == 0:
            try Self.check(umount(cache.path), "umount")
        case .readOnly:
            try Self.check(chmod(cache.path, 0o755), "chmod 755")
        case .removed:
            break   // the cache makes it again itself
        }
    }

    /// Files in `cache` other than its `.lock` (empty when it is gone).
    func cacheFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []).filter { $0 != ".lock" }.sorted()
    }

    /// Files in `cache` with bytes in them that are not a published entry (temporaries and
    /// partials: names starting with a dot, `.lock` aside).
    func halfWrittenFiles() -> [String] {
        cacheFiles().filter { name in
            guard name.hasPrefix(".") else { return false }
            let size = (try? FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent(name).path)[.size]
                        as? NSNumber)?.intValue ?? 0
            return size > 0
        }
    }

    /// Files left in the pipeline's own temporary directory.
    func downloadFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []
    }

    func tearDown() {
        switch fault {
        case .noSpace: _ = umount(cache.path)
        case .readOnly where geteuid() == 0: _ = umount(cache.path)   // a no-op once repaired
        case .readOnly: _ = chmod(cache.path, 0o755)
        case .removed: break
        }
        try? FileManager.default.removeItem(at: scratch)
    }

    private static func mountTmpfs(_ directory: URL, options: String) throws {
        try check(Glibc.mount("tmpfs", directory.path, "tmpfs", 0, options), "mount tmpfs \(options)")
    }

    private static func check(_ result: Int32, _ what: String) throws {
        guard result == 0 else { throw FaultStagingError(what: what, reason: String(cString: strerror(errno))) }
    }
}

/// A fault could not be staged (the test fails with this, it does not pass vacuously).
struct FaultStagingError: Error, CustomStringConvertible {
    let what: String
    let reason: String
    var description: String { "cannot stage the disk fault: \(what): \(reason)" }
}
