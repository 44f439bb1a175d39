#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Records, through inotify, every name created in or renamed into some directories while it
/// watches (DISK-3). Polling the directory could miss a file that lives for microseconds
/// between two polls; the kernel queues every event, so what was written is seen however
/// briefly it stayed. Reading is non-blocking: `events()` drains what the kernel queued so far.
/// `close()` releases the descriptor (checks call it before they return).
final class DirectoryWatch {
    enum Kind: String { case created, renamedInto = "renamed into" }
    struct Event: CustomStringConvertible {
        let kind: Kind
        let name: String
        var description: String { "\(kind.rawValue) \(name)" }
    }

    private var descriptor: Int32
    private var recorded: [Event] = []

    /// Watches `directories` (not recursively) for names created or renamed into them.
    init(_ directories: [URL]) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw CheckFailed(reason: "inotify_init1 failed: errno \(errno)") }
        for directory in directories {
            let mask = UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)
            guard inotify_add_watch(descriptor, directory.path, mask) >= 0 else {
                let code = errno
                close()
                throw CheckFailed(reason: "inotify_add_watch(\(directory.path)) failed: errno \(code)")
            }
        }
    }

    deinit { close() }

    /// Everything recorded since the watch began, draining the kernel's queue first.
    func events() -> [Event] {
        guard descriptor >= 0 else { return recorded }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            // struct inotify_event { int wd; uint32_t mask; uint32_t cookie; uint32_t len; char name[]; },
            // in host byte order (little-endian on every platform Swift on Linux targets).
            while offset + 16 <= count {
                let field = { (at: Int) in buffer[offset + at..<offset + at + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
                let mask = field(4)
                let length = Int(field(12))
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if mask & UInt32(IN_MOVED_TO) != 0 { recorded.append(Event(kind: .renamedInto, name: name)) }
                else if mask & UInt32(IN_CREATE) != 0 { recorded.append(Event(kind: .created, name: name)) }
                offset += 16 + length
            }
        }
        return recorded
    }

    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }
}
