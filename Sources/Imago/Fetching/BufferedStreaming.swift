import Foundation

extension ImageTransport {
    /// `.stream` for a transport that cannot hand its body on as it arrives: fetches the body
    /// into memory (`.data`), then gives it to the request's consumer in pieces of
    /// `pieceSize` bytes. Same result and errors as a real streaming fetch, but the decode starts
    /// only after the last byte and the whole body is held meanwhile. URLSessionTransport uses it:
    /// URLSession on Linux (libcurl) pushes every chunk at its delegate without backpressure.
    public func fetchBufferedThenStream(_ request: FetchRequest, pieceSize: Int = 64 << 10,
                                        progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        guard let consumer = request.bodyConsumer?.consumer else { throw .bodyRefused("a streaming request without a body consumer") }
        var buffered = request
        buffered.strategy = .data
        buffered.bodyConsumer = nil
        var result = try await fetch(buffered, progress: progress)
        guard case .data(let body) = result.body else { return result }   // a 304 passes through
        result.body = .streamed
        var offset = body.startIndex
        while offset < body.endIndex {
            if Task.isCancelled { throw .cancelled }
            let end = min(offset + max(1, pieceSize), body.endIndex)
            try await consumer.consume(body[offset..<end])
            offset = end
        }
        return result
    }
}
