import Foundation
import Imago

/// Planted transport bugs in how a body is kept or judged (`Mutant.errTruncationEndsBody`,
/// `.fetchFileAlsoBuffersBody`, `.httpJudgesDecodedLength`, `.errNonImageIsTransportError`,
/// `.fetchStreamKeepsBody`, `.fetchStreamDropsRestAfterHeader`): a transport of the harness's own that keeps bodies itself, taking
/// them piece by piece from Imago's transport (its `.stream` strategy), and makes the mistake
/// there. Requests it has no mistake for go to Imago's transport unchanged.
struct BodyMistakeTransport: ImageTransport {
    enum Mistake: Sendable {
        /// A connection closed mid-body ends the body: the bytes so far are taken as the image.
        case truncationEndsBody
        /// A download to file also keeps every piece in memory until the end.
        case fileAlsoBuffersBody
        /// Completeness is judged on the bytes after Content-Encoding is undone, against a
        /// Content-Length that counts the encoded ones.
        case judgesDecodedLength
        /// A 200 whose bytes are no image (no PNG, JPEG or WebP signature) fails as a transport error.
        case nonImageIsTransportError
        /// A streaming decode's pieces are also kept (for a retry) until the fetch ends.
        case streamKeepsBody
        /// A streaming decode starts at the header and drops the rest of the piece the header
        /// ended in.
        case streamDropsRestAfterHeader

        /// The mistake that is `mutant`'s bug, nil when it is not one of these.
        init?(_ mutant: Mutant) {
            switch mutant {
            case .errTruncationEndsBody: self = .truncationEndsBody
            case .fetchFileAlsoBuffersBody: self = .fileAlsoBuffersBody
            case .httpJudgesDecodedLength: self = .judgesDecodedLength
            case .errNonImageIsTransportError: self = .nonImageIsTransportError
            case .fetchStreamKeepsBody: self = .streamKeepsBody
            case .fetchStreamDropsRestAfterHeader: self = .streamDropsRestAfterHeader
            default: return nil
            }
        }
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
        case (.judgesDecodedLength, .data), (.judgesDecodedLength, .file):
            let url = request.strategy == .file ? request.makeDownloadFileURL() : nil
            let handle = url.flatMap { FileManager.default.createFile(atPath: $0.path, contents: nil) ? try? FileHandle(forWritingTo: $0) : nil }
            if let url, handle == nil { throw .fileSystem("cannot create \(url.path)") }
            let body = KeptBody(file: handle)
            do throws(FetchError) {
                let result = try await base.fetch(streaming(request, into: body), progress: progress)
                try? handle?.close()
                if case .streamed = result.body, let expected = result.head.expectedLength, body.count < expected {
                    throw FetchError.truncated(expected: expected, received: body.count)
                }
                return kept(result, body: url.map { .file($0) } ?? .data(body.memory))
            } catch {
                try? handle?.close()
                if let url { try? FileManager.default.removeItem(at: url) }
                throw error
            }
        case (.nonImageIsTransportError, .data):
            let result = try await base.fetch(request, progress: progress)
            if case .data(let bytes) = result.body, !bytes.isEmpty, !Self.hasImageSignature(bytes) {
                throw .transport("not an image")
            }
            return result
        case (.streamKeepsBody, .stream):
            guard let consumer = request.bodyConsumer?.consumer else { return try await base.fetch(request, progress: progress) }
            var keeping = request
            keeping.bodyConsumer = BodyConsumerReference(KeepingConsumer(consumer))
            return try await base.fetch(keeping, progress: progress)   // the copy goes when the fetch returns
        case (.streamDropsRestAfterHeader, .stream):
            guard let consumer = request.bodyConsumer?.consumer else { return try await base.fetch(request, progress: progress) }
            var dropping = request
            dropping.bodyConsumer = BodyConsumerReference(HeaderRestDroppingConsumer(consumer))
            return try await base.fetch(dropping, progress: progress)
        default:
            return try await base.fetch(request, progress: progress)
        }
    }

    /// PNG, JPEG or WebP by the first bytes.
    private static func hasImageSignature(_ bytes: Data) -> Bool {
        let head = [UInt8](bytes.prefix(12))
        return head.starts(with: [0x89, 0x50, 0x4E, 0x47]) || head.starts(with: [0xFF, 0xD8, 0xFF])
            || (head.starts(with: Array("RIFF".utf8)) && head.count == 12 && Array(head[8...]) == Array("WEBP".utf8))
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

/// Hands the pieces on, except the bytes after the header in the piece the header ends in. It
/// finds the header's end as the decoder does: a `StreamingDecoder` of its own, pushed until it
/// stops at the header, then closed. `@unchecked Sendable`: one piece at a time, from one task.
private final class HeaderRestDroppingConsumer: StreamingBodyConsumer, @unchecked Sendable {
    private let next: any StreamingBodyConsumer
    private var probe: StreamingDecoder? = StreamingDecoder()

    init(_ next: any StreamingBodyConsumer) { self.next = next }

    deinit { probe?.close() }

    func consume(_ piece: Data) async throws(FetchError) {
        guard let decoder = probe else { return try await next.consume(piece) }
        let pushed = piece.withUnsafeBytes { raw in Result { () throws(DecodeError) in try decoder.push(raw) } }
        guard case .success(let (consumed, stop)) = pushed, stop == .header else {
            return try await next.consume(piece)   // no header yet (or not an image: the pipeline says so)
        }
        decoder.close()
        probe = nil
        try await next.consume(piece.prefix(consumed))   // the rest of this piece is lost
    }
}

/// Hands every piece on and also keeps it, for as long as the fetch holds the consumer.
/// `@unchecked Sendable`: the transport hands it one piece at a time, from one task.
private final class KeepingConsumer: StreamingBodyConsumer, @unchecked Sendable {
    private let next: any StreamingBodyConsumer
    private var kept: [Data] = []

    init(_ next: any StreamingBodyConsumer) { self.next = next }

    func consume(_ piece: Data) async throws(FetchError) {
        kept.append(piece)
        try await next.consume(piece)
    }
}
