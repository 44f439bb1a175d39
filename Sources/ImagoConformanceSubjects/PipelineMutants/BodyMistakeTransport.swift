#if IMAGO_MUTANTS
import Foundation
import Imago

/// Planted transport bugs in how a body is kept (`Mutant.errTruncationEndsBody`,
/// `Mutant.fetchFileAlsoBuffersBody`): a transport of the harness's own that keeps bodies itself,
/// taking them piece by piece from Imago's transport (its `.stream` strategy), and makes the
/// mistake there. Requests it has no mistake for go to Imago's transport unchanged.
struct BodyMistakeTransport: ImageTransport {
    enum Mistake: Sendable {
        /// A connection closed mid-body ends the body: the bytes so far are taken as the image.
        case truncationEndsBody
        /// A download to file also keeps every piece in memory until the end.
        case fileAlsoBuffersBody
    }

    let base: any ImageTransport
    let mistake: Mistake

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        switch (mistake, request.strategy) {
        case (.truncationEndsBody, .data):
            let body = KeptBody(file: nil)
            do {
                let result = try await base.fetch(streaming(request, into: body), progress: progress)
                return kept(result, body: .data(body.memory))
            } catch {
                guard error != .cancelled, body.count > 0 else { throw error }
                return FetchResult(head: FetchResponseHead(statusCode: 200), body: .data(body.memory), receivedBytes: body.count)
            }
        case (.fileAlsoBuffersBody, .file):
            let url = request.makeDownloadFileURL()
            guard FileManager.default.createFile(atPath: url.path, contents: nil),
                  let handle = try? FileHandle(forWritingTo: url)
            else { throw .fileSystem("cannot create \(url.path)") }
            let body = KeptBody(file: handle)
            do {
                let result = try await base.fetch(streaming(request, into: body), progress: progress)
                try? handle.close()
                return kept(result, body: .file(url))
            } catch {
                try? handle.close()
                try? FileManager.default.removeItem(at: url)
                throw error
            }
        default:
            return try await base.fetch(request, progress: progress)
        }
    }

    private func streaming(_ request: FetchRequest, into body: KeptBody) -> FetchRequest {
        var streaming = request
        streaming.strategy = .stream
        streaming.bodyConsumer = BodyConsumerReference(body)
        return streaming
    }

    /// `result` (a streamed body) as a kept one; a 304 stays as it is.
    private func kept(_ result: FetchResult, body: FetchResult.Body) -> FetchResult {
        guard case .streamed = result.body else { return result }
        var kept = result
        kept.body = body
        return kept
    }
}

/// Where `BodyMistakeTransport` keeps a body: always in memory, and also in `file` when given.
/// `@unchecked Sendable`: the transport hands it one piece at a time, from one task.
private final class KeptBody: StreamingBodyConsumer, @unchecked Sendable {
    private(set) var memory = Data()
    private let file: FileHandle?

    init(file: FileHandle?) { self.file = file }

    var count: Int { memory.count }

    func consume(_ piece: Data) async throws(FetchError) {
        memory.append(piece)
        guard let file else { return }
        do { try file.write(contentsOf: piece) } catch { throw .fileSystem("writing the download: \(error)") }
    }
}
#endif
