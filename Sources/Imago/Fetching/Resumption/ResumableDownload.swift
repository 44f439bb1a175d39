import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The partial body of one download-to-file fetch, kept across its attempts so that a transfer
/// that broke mid-body continues where it stopped instead of starting over (RFC 9110 §14).
///
/// Lifecycle. Its owner (the pipeline's fetch stage) makes one per fetch with
/// ``persistent(_:temporaries:url:limit:)`` (a disk cache: the file and record the cache hands
/// out for the source, `DiskCache.partialDownloadFiles(forKey:)`, so another load, even in
/// another process, can continue it; the cache's sweep removes both once older than its grace
/// period) or ``ephemeral(in:url:limit:)`` (no disk cache: a unique
/// `.tmp-imago-download-<UUID>` kept only for the retries of this fetch). Before each attempt it
/// adds ``rangeHeaders()`` to the request and sets ``FetchRequest/resumption``; after each attempt
/// it calls ``settle(after:)``; at the end ``close()``. Either kind holds an exclusive `flock` on
/// its file from creation to ``close()``: two fetches never write one partial.
///
/// Transports write the body of a download through it (`DownloadFile`): a 206 whose
/// `Content-Range` starts where the partial ends continues the file; a 200 restarts it; a 206 for
/// another range drops the partial and asks for a restart without `Range` (as does a 416, seen by
/// the owner). A transport never removes the partial itself: ``settle(after:)`` keeps it only
/// after a mid-body failure (truncation, connection error, idle timeout) of a response with a
/// strong validator and `Accept-Ranges: bytes`, with at least one byte and within the limit; a
/// cancel, a success or any other failure of a body drops it, while a failure before any body (a
/// 503, a refused connection) leaves an earlier partial as it was. A completed body is renamed to a fresh
/// temporary (from `temporaries`: the disk cache's, or a `.tmp-imago-download-` name beside the
/// ephemeral partial) before it is handed over, so it is an ordinary `.file` body and the
/// partial's name is free again. A body whose file cannot be written or renamed goes on in
/// memory (`DownloadFile`, `bodyMovedToMemory()`): the partial is then cut and not kept.
public final class ResumableDownload: Sendable, Hashable {
    struct Partial: Equatable {
        var validator: String
        var bytes: Int
        var total: Int?
    }

    /// The body the current attempt is writing.
    struct Body {
        var offset: Int
        var written = 0
        var total: Int?
        /// The validator that makes it continuable; nil: not continuable.
        var validator: String?
    }

    private struct State {
        var partial: Partial?
        var askedOffset = 0
        var body: Body?
        var restartWanted = false
        /// The file was completed and renamed away: the name is no longer ours to remove.
        var renamedAway = false
        var closed = false
        /// A record may be on disk for this partial: one was found at creation or written since.
        /// Only this fetch writes it while it holds the lock, so when false there is nothing to
        /// remove and no system call is spent on it (a fresh download asked for four).
        var recordMayExist = false
    }

    /// The partial's path.
    public let fileURL: URL
    /// The record's path; nil for an ephemeral partial.
    let recordURL: URL?
    /// Bytes the complete body may have: the fetch's size limit (and the disk cache's).
    let limit: Int
    private let sourceURL: URL
    /// Fresh paths beside the partial: the completed body's, and the record's while it is written.
    private let temporaries: @Sendable () -> URL
    private let lock: PartialFileLock
    private let state: Mutex<State>

    private init(fileURL: URL, recordURL: URL?, temporaries: @escaping @Sendable () -> URL, sourceURL: URL, limit: Int,
                 lock: PartialFileLock, partial: Partial?, recordMayExist: Bool = false) {
        self.fileURL = fileURL
        self.recordURL = recordURL
        self.temporaries = temporaries
        self.sourceURL = sourceURL
        self.limit = limit
        self.lock = lock
        self.state = Mutex(State(partial: partial, recordMayExist: recordMayExist))
    }

    /// The partial kept in `files` (a disk cache's, for one source), with what an earlier fetch
    /// left there when its record matches (otherwise that is dropped); `temporaries` gives fresh
    /// paths in the same directory (`DiskCache.makeTemporaryFileURL`). nil when another fetch
    /// owns it now (then this fetch downloads to a fresh temporary, as without resumption).
    public static func persistent(_ files: DiskCache.PartialDownloadFiles, temporaries: @escaping @Sendable () -> URL,
                                  url: URL, limit: Int) -> ResumableDownload? {
        persistent(files, temporaries: temporaries, url: url, limit: limit, locking: FlockPartialDownloadLocking())
    }

    /// `persistent(_:temporaries:url:limit:)`, locking the partial through `locking`
    /// (`ImagePipeline.Configuration.Network.partialDownloadLocking`). Only this kind is shared
    /// between fetches: an ephemeral partial's name is unique to its fetch.
    static func persistent(_ files: DiskCache.PartialDownloadFiles, temporaries: @escaping @Sendable () -> URL,
                           url: URL, limit: Int, locking: any PartialDownloadLocking) -> ResumableDownload? {
        let (fileURL, recordURL) = (files.file, files.record)
        guard let lock = PartialFileLock(path: fileURL.path, locking: locking) else { return nil }
        var partial: Partial?
        if let record = PartialRecord.read(recordURL), record.matches(sourceURL: url, fileSize: lock.size, limit: limit) {
            partial = Partial(validator: record.validator, bytes: record.bytes, total: record.total)
        } else {
            try? lock.truncate(to: 0)
            unlink(recordURL.path)   // a record that does not match (or none: ENOENT)
        }
        return ResumableDownload(fileURL: fileURL, recordURL: recordURL, temporaries: temporaries, sourceURL: url,
                                 limit: limit, lock: lock, partial: partial, recordMayExist: partial != nil)
    }

    /// A partial in `directory` for the attempts of one fetch only; nil when it cannot be created.
    public static func ephemeral(in directory: URL, url: URL, limit: Int) -> ResumableDownload? {
        // Named like any download temporary: it is one, only kept across this fetch's attempts.
        ephemeral(temporaries: { directory.appendingPathComponent(FetchRequest.downloadFilePrefix + UUID().uuidString) },
                  url: url, limit: limit)
    }

    /// A partial for the attempts of one fetch only, at a path `temporaries` gives (a disk
    /// cache's `makeTemporaryFileURL`), as is the completed body; nil when it cannot be created.
    public static func ephemeral(temporaries: @escaping @Sendable () -> URL, url: URL, limit: Int) -> ResumableDownload? {
        let fileURL = temporaries()
        guard let lock = PartialFileLock(path: fileURL.path) else { return nil }
        return ResumableDownload(fileURL: fileURL, recordURL: nil, temporaries: temporaries, sourceURL: url, limit: limit,
                                 lock: lock, partial: nil)
    }

    /// True once a completed body was handed over: another attempt (after a timeout raced the
    /// completion, say) needs a new `ResumableDownload`.
    public var isSpent: Bool { state.withLock { $0.renamedAway } }

    /// Bytes kept from earlier attempts (0: the next attempt starts from the beginning).
    public var keptBytes: Int { state.withLock { $0.partial?.bytes ?? 0 } }

    /// `Range: bytes=N-` and `If-Range: <validator>` when bytes are kept, else nothing; the next
    /// body the transports begin is judged against what was asked here.
    public func rangeHeaders() -> [String: String] {
        state.withLock { state in
            state.askedOffset = state.partial?.bytes ?? 0
            state.body = nil
            guard let partial = state.partial else { return [:] }
            return ["Range": "bytes=\(partial.bytes)-", "If-Range": partial.validator]
        }
    }

    /// Called by ``DownloadFile`` with the accepted head of a 2xx answer: where to write. A 206
    /// continuing the partial writes on at its end; any other 2xx restarts the file. A 206 that
    /// does not continue it (another range, no complete length, a size past the limit, another
    /// validator) drops the partial, asks the owner for a restart and fails the attempt.
    func beginBody(_ head: FetchResponseHead) throws(FetchError) -> (handle: FileHandle, offset: Int, total: Int?) {
        let begun: Result<Body, FetchError> = state.withLock { state in
            guard !state.renamedAway else { return .failure(.fileSystem("a spent ResumableDownload was reused")) }
            removeRecord(&state)   // see PartialRecord
            let asked = state.askedOffset
            if head.statusCode == 206, asked > 0, let partial = state.partial {
                guard let body = partial.continued(by: head, at: asked, limit: limit) else {
                    state.partial = nil
                    state.restartWanted = true
                    try? lock.truncate(to: 0)
                    let field = head.headers["content-range"] ?? "none"
                    return .failure(.transport("a 206 that does not continue the partial download (Content-Range: \(field))"))
                }
                state.body = body
                return .success(body)
            }
            state.partial = nil
            let identity = ResumeValidator.isIdentity(head)
            // A no-store body is never kept for later, not even in part (HTTP-1).
            let continuable = head.statusCode == 200 && identity && ResumeValidator.acceptsByteRanges(head)
                && !CacheControl(head.headers["cache-control"]).noStore
            let body = Body(offset: 0, total: identity ? head.expectedLength : nil,
                            validator: continuable ? ResumeValidator.strong(head) : nil)
            state.body = body
            return .success(body)
        }
        let body = try begun.get()
        try lock.truncate(to: body.offset)
        return (try lock.writer(at: body.offset), body.offset, body.total)
    }

    /// Counts bytes the transport wrote to the current body.
    func wrote(_ count: Int) {
        state.withLock { state in state.body?.written += count }
    }

    /// The current body could not be written to the file and went on in memory
    /// (``DownloadFile``): nothing of it is kept, and the file is cut, so no half-written
    /// partial stays, whatever the attempt ends with.
    func bodyMovedToMemory() {
        state.withLock { state in
            state.partial = nil
            state.body = nil
            if !state.renamedAway { try? lock.truncate(to: 0) }
            removeRecord(&state)
        }
    }

    /// The complete body: renamed to a fresh temporary in the same directory (an
    /// ordinary `.file` body the receiver moves or deletes); nothing is kept.
    func completeBody() throws(FetchError) -> URL {
        let destination = temporaries()
        return try state.withLock { state throws(FetchError) -> URL in
            state.partial = nil
            state.body = nil
            // A sweep may have removed the name (and another fetch taken it) since the lock:
            // then what the name leads to is not this body. Transient: the retry starts over.
            guard lock.isNamed(by: fileURL.path) else {
                throw .transport("the partial download was removed while it was being written")
            }
            guard rename(fileURL.path, destination.path) == 0 else {
                throw .fileSystem("renaming the completed download: \(String(cString: strerror(errno)))")
            }
            state.renamedAway = true
            return destination
        }
    }

    /// After each attempt: keeps the bytes of a body that broke mid-way when they can be
    /// continued, else drops them (see the type's comment). `outcome` nil: the attempt never ran
    /// (cancelled while queued).
    public func settle(after outcome: Result<FetchResult, FetchError>?) {
        state.withLock { state in
            defer { state.body = nil; state.askedOffset = 0 }
            switch outcome {
            case .success?:
                state.partial = nil
            case .failure(.httpStatus(416, _, _))? where state.askedOffset > 0:
                state.partial = nil
                state.restartWanted = true
            case .failure(let error)?:
                guard let body = state.body else { return }   // failed before any body: keep as is
                state.partial = body.keepable(after: error, limit: limit)
            case nil:
                state.partial = nil
            }
            // Once renamed away the locked file is the completed body: never cut it.
            if state.partial == nil, !state.renamedAway { try? lock.truncate(to: 0) }
            // The bytes reach the disk before the record that vouches for them.
            if state.partial != nil, recordURL != nil { lock.synchronize() }
            writeRecord(state.partial, &state)
        }
    }

    private func writeRecord(_ partial: Partial?, _ state: inout State) {
        guard let recordURL else { return }
        guard let partial else {
            removeRecord(&state)
            return
        }
        let record = PartialRecord(url: sourceURL.absoluteString, validator: partial.validator, bytes: partial.bytes,
                                   total: partial.total)
        state.recordMayExist = true
        if (try? record.write(to: recordURL, through: temporaries())) == nil { removeRecord(&state) }
    }

    /// Removes the record, if one may be on disk (a plain `unlink`: it is a regular file).
    private func removeRecord(_ state: inout State) {
        guard state.recordMayExist, let recordURL else { return }
        unlink(recordURL.path)
        state.recordMayExist = false
    }

    /// True once after the partial was dropped because the answer to a range request could not
    /// continue it: the owner should start over at once, without `Range`.
    public func takeRestartRequest() -> Bool {
        state.withLock { state in defer { state.restartWanted = false }; return state.restartWanted }
    }

    /// Ends the fetch's ownership: a persistent partial worth keeping stays (with its record) for
    /// a later load; anything else is removed. Then the lock is released. Idempotent.
    public func close() {
        let keep: Bool? = state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            let keep = recordURL != nil && state.partial != nil || state.renamedAway
            if !keep { removeRecord(&state) }
            return keep
        }
        guard let keep else { return }
        if !keep {
            // Removed while still locked (so the name is free before anyone can lock this file),
            // and only while the name still leads to the locked file.
            if lock.isNamed(by: fileURL.path) { unlink(fileURL.path) }
        }
        lock.release()
    }

    deinit { close() }

    /// Identity: a partial download equals only itself (one per fetch, owning its file's lock).
    public static func == (lhs: ResumableDownload, rhs: ResumableDownload) -> Bool { lhs === rhs }
    /// Hashes the object identity, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
