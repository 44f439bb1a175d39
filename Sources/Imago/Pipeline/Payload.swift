import Foundation

/// Fetched bytes on their way to the decoder, shared by every decode of one source. A
/// download that is not in the disk cache is a temporary file deleted with the last reference.
final class Payload: Sendable {
    enum Storage: Sendable {
        case data(Data)
        case file(URL)
    }

    let storage: Storage
    /// The disk cache holds these bytes under this key (so a decode failure removes them).
    let diskKey: String?
    /// `.network`, or `.disk` when a revalidation answered 304 and the cached bytes serve.
    let origin: ImageOrigin
    /// What the disk cache did with the response (nil without a disk cache).
    let diskCache: DiskCacheOutcome?
    private let ownsFile: Bool
    /// The open file `storage` names (by `/proc/self/fd/N`), closed with the last reference
    /// (nil: none; see `DiskStage.pin`).
    private let pinned: PinnedFile?

    init(storage: Storage, diskKey: String?, origin: ImageOrigin, ownsFile: Bool, diskCache: DiskCacheOutcome? = nil,
         pinned: PinnedFile? = nil) {
        self.storage = storage
        self.diskKey = diskKey
        self.origin = origin
        self.ownsFile = ownsFile
        self.diskCache = diskCache
        self.pinned = pinned
    }

    deinit {
        if ownsFile, case .file(let url) = storage { try? FileManager.default.removeItem(at: url) }
        pinned?.close()
    }

    /// True when the body was held open and that descriptor no longer leads to it (another part
    /// of the process closed the number, and another file may have it now): `storage` must not
    /// be read (see `PinnedFile`).
    var lostPinnedBody: Bool { pinned.map { !$0.isIntact } ?? false }

    /// What the first bytes declare, judged before anything is stored (DISK-3).
    /// A file is read through `descriptor` when one is open on it already (one `pread`, no
    /// `open`: this runs once per downloaded body).
    static func sniff(_ storage: Storage, descriptor: Int32? = nil) -> SniffedFormat {
        switch storage {
        case .data(let data): return SniffedFormat(prefix: data.prefix(SniffedFormat.prefixLength))
        case .file(let url):
            let fd = descriptor ?? open(url.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return .unknown }
            defer { if descriptor == nil { close(fd) } }
            return SniffedFormat(prefix: SniffedFormat.prefix(ofFile: fd) ?? [])
        }
    }
}
