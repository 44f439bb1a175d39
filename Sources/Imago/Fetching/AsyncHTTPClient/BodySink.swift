import Foundation
import NIOCore
import Synchronization

/// Where an accepted body goes, decoded chunk by decoded chunk: memory (pre-sized from the
/// Content-Length), a `DownloadFile` (a fresh temporary, or a resumable partial) written before
/// the next chunk is asked for, or a streaming request's consumer, awaited before the next. Enforces the size limit on the bytes kept, counting those a
/// continued partial already holds.
///
/// A class with a deinit, not a struct: whatever way the fetch ends (an error, the task
/// cancelled mid-write), a file that was not handed over is closed and removed.
final class BodySink {
    private enum Destination {
        case memory(Data)
        case file(DownloadFile)
        case consumer(any StreamingBodyConsumer)
        case done
    }

    private var destination: Destination
    private let limit: Int
    /// Bytes of the body kept so far, those of a continued partial included.
    private(set) var stored = 0
    /// Bytes a continued partial already held (0 unless resumed).
    let resumedFrom: Int
    /// The complete body's length when a continued partial's 206 told it.
    let resumedTotal: Int?

    /// Opens the destination for the body of `head`. `expectedSize` (the identity body's
    /// Content-Length, already known to be within the limit) reserves the memory at once instead
    /// of a doubling buffer that briefly holds old and new copies.
    init(_ request: FetchRequest, head: FetchResponseHead, expectedSize: Int?) throws(FetchError) {
        limit = request.maxResponseSize
        switch request.strategy {
        case .data:
            var data = Data()
            if let expectedSize, expectedSize > 0 { data.reserveCapacity(expectedSize) }
            destination = .memory(data)
            (resumedFrom, resumedTotal) = (0, nil)
        case .file:
            let file = try DownloadFile(request, head: head)
            destination = .file(file)
            (resumedFrom, resumedTotal) = (file.offset, file.offset > 0 ? file.total : nil)
            stored = file.offset
        case .stream:
            guard let consumer = request.bodyConsumer?.consumer else { throw .bodyRefused("a streaming request without a body consumer") }
            destination = .consumer(consumer)
            (resumedFrom, resumedTotal) = (0, nil)
        }
    }

    deinit { discard() }

    /// Keeps `chunk`; `.tooLarge` when it would take the body past the limit (nothing of it kept).
    func append(_ chunk: ByteBuffer) async throws(FetchError) {
        guard stored + chunk.readableBytes <= limit else { throw .tooLarge(limit: limit) }
        switch destination {
        case .consumer(let consumer):
            // One copy of the piece (the consumer may keep it past this call); the transport's
            // buffer is released as soon as this returns.
            try await consumer.consume(chunk.withUnsafeReadableBytes { Data($0) })
        case .memory(var data):
            destination = .done   // no second reference while appending: no copy of the body
            chunk.withUnsafeReadableBytes { data.append($0.assumingMemoryBound(to: UInt8.self)) }
            destination = .memory(data)
        case .file(let file):
            var failure: FetchError?
            chunk.withUnsafeReadableBytes { bytes in
                do throws(FetchError) { try file.write(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
        case .done:
            preconditionFailure("BodySink used after it finished")
        }
        stored += chunk.readableBytes
    }

    /// Hands the body over: the data, or the closed file (the receiver moves or deletes it); a
    /// download whose file failed hands over its bytes as data.
    func finish() throws(FetchError) -> FetchResult.Body {
        let taken = destination
        destination = .done
        switch taken {
        case .memory(let data):
            return .data(data)
        case .file(let file):
            return try file.finish()
        case .consumer:
            return .streamed
        case .done:
            preconditionFailure("BodySink finished twice")
        }
    }

    /// Drops whatever was kept: memory freed, the file closed and removed (a resumable partial
    /// only closed: its owner settles it). Idempotent.
    func discard() {
        let taken = destination
        destination = .done
        if case .file(let file) = taken { file.abandon() }
    }
}

/// Bytes the transport holds between receiving them and storing them (the chunk being written,
/// plus its decoded pieces), now and at the most: what shows that a download to file keeps only
/// a small window in memory however large the body.
final class InFlightGauge: Sendable {
    private struct Counts { var current = 0, peak = 0 }
    private let counts = Mutex(Counts())

    var current: Int { counts.withLock { $0.current } }
    var peak: Int { counts.withLock { $0.peak } }

    func add(_ bytes: Int) {
        counts.withLock { counts in
            counts.current += bytes
            counts.peak = max(counts.peak, counts.current)
        }
    }

    func remove(_ bytes: Int) { counts.withLock { $0.current -= bytes } }

    /// Forgets the peak (between measurements).
    func resetPeak() { counts.withLock { $0.peak = $0.current } }
}
