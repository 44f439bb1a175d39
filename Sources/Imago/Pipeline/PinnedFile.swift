import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A downloaded body held open by its load (see `DiskStage.pin`), with the identity of the file
/// it was opened on, so the load can tell when its descriptor no longer leads there.
///
/// Why: the load reads the body through `/proc/self/fd/N`, which follows whatever descriptor
/// `N` is *now*. Should another part of the process close `N` (a double close elsewhere:
/// swift-corelibs-foundation's URLSession has closed descriptors it did not own, SR-11557) and a
/// new file take the number, the load would decode that file. The fault soak saw a download that
/// arrived whole fail with `decoding(unsupportedFormat)` once under ThreadSanitizer, through
/// URLSession, and nothing in Imago writes over a body it holds. With the identity the load
/// notices, decodes the disk cache's entry by name instead, and removes no entry for bytes that
/// were never its own; and it never closes a number that is no longer its descriptor.
struct PinnedFile: Sendable {
    let descriptor: Int32
    private let device: UInt64
    private let inode: UInt64

    /// Opens `url` for reading; nil when it cannot be opened.
    init?(_ url: URL) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            _ = Glibc.close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Whether the descriptor is still open on the file it was opened on (one `fstat`).
    var isIntact: Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Closes the descriptor, unless it no longer leads to this file: then the number is
    /// another owner's, and closing it would break that owner in turn.
    func close() {
        if isIntact { _ = Glibc.close(descriptor) }
    }
}
