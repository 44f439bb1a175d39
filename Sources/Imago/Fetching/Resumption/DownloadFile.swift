import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a download-to-file body is written to, the same for both transports: a fresh
/// `.tmp-imago-download-<UUID>` temporary, or the request's ``ResumableDownload`` partial
/// (continued after a 206, restarted after any other 2xx).
///
/// A disk that fails never costs the image the network sends: when the file cannot be created
/// or written (no space, a quota, a read-only or removed directory), or its name no longer
/// leads to it when the body completes (the directory was removed under it), the body goes on
/// in memory (bounded by the request's `maxResponseSize`, as a `.data` body is) and is handed
/// over as `.data`; the file is dropped (a resumable partial is truncated and left to its
/// owner, who keeps nothing of it). A streamed body's copy
/// for the disk cache (`fallsBackToMemory` false) is dropped instead: the decoder has the bytes.
///
/// A class with a deinit: whatever way the fetch ends, a fresh temporary that was not handed
/// over is closed and removed. A resumable partial is only closed: its owner decides, after the
/// attempt, whether its bytes are kept (``ResumableDownload/settle(after:)``).
///
/// `@unchecked Sendable`: it has one owner at a time (a `BodySink` in one task, or a
/// `FetchOperation` that only touches it under its mutex), and is only handed between them.
final class DownloadFile: @unchecked Sendable {
    /// Bytes already in the file from earlier attempts: 0 unless this body continues a partial.
    let offset: Int
    /// The complete body's length when known (a continuing 206: from its Content-Range).
    let total: Int?
    private var handle: FileHandle?
    private let freshURL: URL?
    private let resumption: ResumableDownload?
    /// Whether a file that fails moves the body to memory (false: the failure is thrown).
    private let fallsBackToMemory: Bool
    /// Bytes of this attempt's body written whole to the file (the file's bytes past
    /// `offset + written` are a failed write's, never trusted).
    private var written = 0
    /// The body, once the file failed and it went on in memory.
    private var spilled: Data?

    /// Opens the file for the body of `head` (a 2xx already accepted); a fresh file that cannot
    /// be created leaves the body in memory from its first byte.
    convenience init(_ request: FetchRequest, head: FetchResponseHead) throws(FetchError) {
        if let resumption = request.resumption {
            let (handle, offset, total) = try resumption.beginBody(head)
            self.init(handle: handle, offset: offset, total: total, freshURL: nil, resumption: resumption,
                      fallsBackToMemory: true)
        } else {
            let url = request.makeDownloadFileURL()
            switch Self.create(url) {
            case .success(let handle):
                self.init(handle: handle, offset: 0, total: nil, freshURL: url, resumption: nil, fallsBackToMemory: true)
            case .failure:
                self.init(handle: nil, offset: 0, total: nil, freshURL: nil, resumption: nil, fallsBackToMemory: true)
                spilled = Self.emptyBody(capacity: head.expectedLength)
            }
        }
    }

    /// A fresh file at `url` (a download's, or a streamed body's copy at a path the disk cache
    /// handed out); `fallsBackToMemory` false: a write that fails is thrown (default true).
    convenience init(at url: URL, fallsBackToMemory: Bool = true) throws(FetchError) {
        let handle = try Self.create(url).get()
        self.init(handle: handle, offset: 0, total: nil, freshURL: url, resumption: nil, fallsBackToMemory: fallsBackToMemory)
    }

    private init(handle: FileHandle?, offset: Int, total: Int?, freshURL: URL?, resumption: ResumableDownload?,
                 fallsBackToMemory: Bool) {
        (self.handle, self.offset, self.total, self.freshURL, self.resumption) = (handle, offset, total, freshURL, resumption)
        self.fallsBackToMemory = fallsBackToMemory
    }

    /// Creates (or empties) `url`, open for reading too: a body that moves to memory is read
    /// back from the descriptor.
    private static func create(_ url: URL) -> Result<FileHandle, FetchError> {
        let fd = open(url.path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return .failure(.fileSystem("cannot create \(url.path): \(String(cString: strerror(errno)))")) }
        return .success(FileHandle(fileDescriptor: fd, closeOnDealloc: true))
    }

    private static func emptyBody(capacity: Int?) -> Data {
        var data = Data()
        if let capacity, capacity > 0 { data.reserveCapacity(capacity) }
        return data
    }

    deinit { abandon() }

    private var name: String { freshURL?.lastPathComponent ?? resumption?.fileURL.lastPathComponent ?? "download" }

    /// Appends `bytes`.
    func write(_ bytes: some DataProtocol) throws(FetchError) {
        if spilled != nil {
            spilled?.append(contentsOf: bytes)
            return
        }
        guard let handle else { preconditionFailure("DownloadFile written after it was closed") }
        if let code = writeAll(handle.fileDescriptor, bytes) {
            let failure = FetchError.fileSystem("writing \(name): \(String(cString: strerror(code)))")
            try moveToMemory(after: failure)
            spilled?.append(contentsOf: bytes)
            return
        }
        written += bytes.count
        resumption?.wrote(bytes.count)
    }

    /// Closes the complete body and hands it over: the file (the receiver moves or deletes it),
    /// or the bytes when the file failed.
    func finish() throws(FetchError) -> FetchResult.Body {
        // The directory may have been removed (or the file renamed) under the body: its bytes
        // are still there through the descriptor, and nowhere else.
        if spilled == nil, let path = freshURL?.path ?? resumption?.fileURL.path, !namesOpenFile(path) {
            try moveToMemory(after: .fileSystem("\(name) was removed while it was being written"))
        }
        if let resumption, spilled == nil {
            // Renamed while still open: should the rename fail (a directory made read-only under
            // it), the bytes are read back from the descriptor.
            do throws(FetchError) {
                let completed = try resumption.completeBody()
                try closeHandle(removingOnFailure: completed)
                return .file(completed)
            } catch {
                try moveToMemory(after: error)
            }
        }
        if let spilled {
            self.spilled = nil
            return .data(spilled)
        }
        try closeHandle(removingOnFailure: freshURL)
        return .file(freshURL!)
    }

    /// Closes the complete file. A close that fails (EIO from a network file system) may have
    /// lost written bytes: the file at `url` is then removed and the failure thrown.
    private func closeHandle(removingOnFailure url: URL?) throws(FetchError) {
        let taken = handle
        handle = nil
        do {
            try taken?.close()
        } catch {
            if let url { try? FileManager.default.removeItem(at: url) }
            throw .fileSystem("closing \(name): \(error)")
        }
    }

    /// The body will not complete (or its copy was not stored): closes the file, and removes it
    /// unless it is a resumable partial (whose owner settles it). A fresh file is emptied through
    /// its descriptor first: in a directory made read-only its name cannot be removed, and what
    /// stays must not be a body's bytes. Idempotent.
    func abandon() {
        spilled = nil
        guard let taken = handle else { return }
        handle = nil
        if freshURL != nil { _ = ftruncate(taken.fileDescriptor, 0) }
        try? taken.close()
        if let freshURL { try? FileManager.default.removeItem(at: freshURL) }
    }

    /// For a body's copy its receiver may fail to store (a streamed body's tee): the complete
    /// fresh file's path, left open so that ``abandon()`` can still empty it if it stays behind;
    /// ``release()`` once it was taken. Nil when the name no longer leads to the file (its
    /// directory was removed): the caller abandons it.
    func completedCopy() -> URL? {
        guard spilled == nil, handle != nil, let freshURL, namesOpenFile(freshURL.path) else { return nil }
        return freshURL
    }

    /// Closes the file without touching its name: it was taken (moved into the disk cache).
    func release() {
        let taken = handle
        handle = nil
        try? taken?.close()
    }

    /// The file failed (`failure`): its whole bytes so far (a continued partial's included) are
    /// read back into memory, where the body goes on, and the file is dropped. Throws `failure`
    /// when that is not allowed or the bytes cannot be read back.
    private func moveToMemory(after failure: FetchError) throws(FetchError) {
        guard fallsBackToMemory, let handle else { throw failure }
        let length = offset + written
        guard let bytes = Self.read(handle.fileDescriptor, length: length) else { throw failure }
        var moved = Self.emptyBody(capacity: total ?? length)
        moved.append(bytes)
        spilled = moved
        // The file's bytes are in memory now: a partial is cut (its owner keeps nothing of a
        // body that did not reach the disk), a fresh file removed.
        resumption?.bodyMovedToMemory()
        abandonFile()
    }

    /// Closes and drops the file, keeping the bytes moved to memory. A fresh file's name is
    /// removed only while it still leads to this file.
    private func abandonFile() {
        guard let taken = handle else { return }
        let removable = freshURL.map { namesOpenFile($0.path) } ?? false
        handle = nil
        try? taken.close()
        if removable, let freshURL { try? FileManager.default.removeItem(at: freshURL) }
    }

    /// Whether `path` still leads to the open file (true when nothing is open to compare with).
    private func namesOpenFile(_ path: String) -> Bool {
        guard let fd = handle?.fileDescriptor else { return true }
        var opened = stat(), named = stat()
        return fstat(fd, &opened) == 0 && stat(path, &named) == 0 && opened.st_ino == named.st_ino
            && opened.st_dev == named.st_dev
    }

    /// The first `length` bytes of `fd` (`pread`, so the write offset stays), or nil on failure.
    private static func read(_ fd: Int32, length: Int) -> Data? {
        var data = Data(count: length)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var done = 0
            while done < length {
                let count = pread(fd, buffer.baseAddress! + done, length - done, off_t(done))
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return false }
                done += count
            }
            return true
        }
        return complete ? data : nil
    }
}

/// Writes all of `bytes` to `fd` (`write(2)`, retried on EINTR); the `errno` it failed with,
/// or nil. POSIX rather than `FileHandle`, whose errors print as NSError dumps.
private func writeAll(_ fd: Int32, _ bytes: some DataProtocol) -> Int32? {
    for region in bytes.regions {
        let failed: Int32? = region.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let count = write(fd, buffer.baseAddress! + done, buffer.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += count
            }
            return nil
        }
        if let failed { return failed }
    }
    return nil
}

