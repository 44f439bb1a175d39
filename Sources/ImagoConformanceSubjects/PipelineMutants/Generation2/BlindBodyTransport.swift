import Foundation
import Imago
import Synchronization

/// `Mutant.errUnknownLengthTruncationKept` (`.data`) and `.errFileTruncationKept` (`.file`): a
/// transport that takes the body piece by piece from Imago's (its `.stream` strategy) into
/// memory or a file, and when the transfer fails part-way keeps what arrived as the whole body:
/// in memory only when there was no Content-Length to compare with (a chunked body); in a
/// download to file whatever the length (the download's error is logged, not thrown). The
/// response head is lost with the error: the kept body comes as a bare 200. Requests of the
/// other strategies go to Imago's transport unchanged.
struct PartialBodyKeepingTransport: ImageTransport {
    let base: any ImageTransport
    let strategy: FetchStrategy

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        guard request.strategy == strategy else { return try await base.fetch(request, progress: progress) }
        let url = strategy == .file ? request.makeDownloadFileURL() : nil
        let handle = url.flatMap { FileManager.default.createFile(atPath: $0.path, contents: nil) ? try? FileHandle(forWritingTo: $0) : nil }
        if let url, handle == nil { throw .fileSystem("cannot create \(url.path)") }
        let body = ReceivedBody(file: handle)
        var streaming = request
        streaming.strategy = .stream
        streaming.bodyConsumer = BodyConsumerReference(body)
        do {
            let result = try await base.fetch(streaming) { reported in
                body.note(expected: reported.expected)
                progress(reported)
            }
            try? handle?.close()
            guard case .streamed = result.body else { return result }   // a 304
            var kept = result
            kept.body = url.map { .file($0) } ?? .data(body.memory)
            return kept
        } catch {
            try? handle?.close()
            let keeps = error != .cancelled && body.count > 0 && (strategy == .file || body.expected == nil)
            guard keeps else {
                if let url { try? FileManager.default.removeItem(at: url) }
                throw error
            }
            return FetchResult(head: FetchResponseHead(statusCode: 200), body: url.map { .file($0) } ?? .data(body.memory),
                               receivedBytes: body.count)
        }
    }
}

/// Where `PartialBodyKeepingTransport` keeps a body: in `file` when given, else in memory; and
/// the Content-Length the progress reports named. `@unchecked Sendable`: the transport hands it
/// one piece at a time, from one task; the length is under a lock (progress may come from
/// another).
private final class ReceivedBody: StreamingBodyConsumer, @unchecked Sendable {
    private(set) var memory = Data()
    private(set) var count = 0
    private let file: FileHandle?
    private let length = Mutex<Int?>(nil)

    init(file: FileHandle?) { self.file = file }

    var expected: Int? { length.withLock { $0 } }

    func note(expected: Int?) {
        if let expected { length.withLock { $0 = expected } }
    }

    func consume(_ piece: Data) async throws(FetchError) {
        count += piece.count
        guard let file else { return memory.append(piece) }
        do { try file.write(contentsOf: piece) } catch { throw .fileSystem("writing the download: \(error)") }
    }
}
