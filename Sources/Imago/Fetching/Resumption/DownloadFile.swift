import Foundation

/// The file a download-to-file body is written to, the same for both transports: a fresh
/// `.tmp-imago-download-<UUID>` temporary, or the request's ``ResumableDownload`` partial
/// (continued after a 206, restarted after any other 2xx).
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

    /// Opens the file for the body of `head` (a 2xx already accepted).
    convenience init(_ request: FetchRequest, head: FetchResponseHead) throws(FetchError) {
        if let resumption = request.resumption {
            let (handle, offset, total) = try resumption.beginBody(head)
            self.init(handle: handle, offset: offset, total: total, freshURL: nil, resumption: resumption)
        } else {
            try self.init(at: request.makeDownloadFileURL())
        }
    }

    /// A fresh file at `url` (a download's, or a streamed body's copy at a path the disk cache
    /// handed out).
    convenience init(at url: URL) throws(FetchError) {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: url)
        else { throw .fileSystem("cannot create \(url.path)") }
        self.init(handle: handle, offset: 0, total: nil, freshURL: url, resumption: nil)
    }

    private init(handle: FileHandle?, offset: Int, total: Int?, freshURL: URL?, resumption: ResumableDownload?) {
        (self.handle, self.offset, self.total, self.freshURL, self.resumption) = (handle, offset, total, freshURL, resumption)
    }

    deinit { abandon() }

    private var name: String { freshURL?.lastPathComponent ?? resumption?.fileURL.lastPathComponent ?? "download" }

    /// Appends `bytes`.
    func write(_ bytes: some DataProtocol) throws(FetchError) {
        guard let handle else { preconditionFailure("DownloadFile written after it was closed") }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw .fileSystem("writing \(name): \(error)")
        }
        resumption?.wrote(bytes.count)
    }

    /// Closes the complete body and hands it over (the receiver moves or deletes it).
    func finish() throws(FetchError) -> URL {
        let taken = handle
        handle = nil
        do {
            try taken?.close()
        } catch {
            if let freshURL { try? FileManager.default.removeItem(at: freshURL) }
            throw .fileSystem("closing \(name): \(error)")
        }
        if let resumption { return try resumption.completeBody() }
        return freshURL!
    }

    /// The body will not complete: closes the file, and removes it unless it is a resumable
    /// partial (whose owner settles it). Idempotent.
    func abandon() {
        guard let taken = handle else { return }
        handle = nil
        try? taken.close()
        if let freshURL { try? FileManager.default.removeItem(at: freshURL) }
    }
}
