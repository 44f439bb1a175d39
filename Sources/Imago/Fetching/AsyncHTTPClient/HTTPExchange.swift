import AsyncHTTPClient
import Foundation
import NIOCore

/// One fetch over AsyncHTTPClient, from the request to the stored body. Runs in a child task
/// of `AsyncHTTPClientTransport.fetch`, beside the watchdog that may cancel it.
struct HTTPExchange: Sendable {
    let client: HTTPClient
    let request: FetchRequest
    let httpRequest: HTTPClientRequest
    let redirectLimit: Int
    let watchdog: FetchWatchdog
    let gauge: InFlightGauge
    let progress: @Sendable (FetchProgress) -> Void

    func run() async -> Result<FetchResult, FetchError> {
        do throws(FetchError) {
            return .success(try await exchange())
        } catch {
            return .failure(error)
        }
    }

    private func exchange() async throws(FetchError) -> FetchResult {
        let response: HTTPClientResponse
        do {
            // No AsyncHTTPClient deadline: the watchdog is the one clock (its deadline only
            // covers the head anyway), and `.distantFuture` keeps AHC from adding another.
            response = try await client.execute(httpRequest, deadline: .distantFuture)
        } catch {
            throw FetchErrorMapping.beforeHead(error, redirectLimit: redirectLimit, url: request.url)
        }
        watchdog.activity.touch()
        let finalURL = response.url ?? request.url
        let redirects = max(0, response.history.count - 1)
        // A refused head throws here and `response` goes out of scope unread: dropping an
        // unconsumed AsyncHTTPClient body cancels the request, which closes the connection
        // (HTTP/1.1) or resets the stream (HTTP/2) rather than reading the body to reuse it.
        switch try ResponseHeadJudge.judge(response, maxResponseSize: request.maxResponseSize) {
        case .notModified(let head):
            return FetchResult(head: head, body: .notModified, receivedBytes: 0, finalURL: finalURL, redirects: redirects)
        case .accept(let head, let encoding):
            let (body, received, resumedFrom) = try await receive(response.body, head: head, encoding: encoding)
            return FetchResult(head: head, body: body, receivedBytes: received, finalURL: finalURL, redirects: redirects,
                               resumedFrom: resumedFrom)
        }
    }

    /// Streams the body into a sink. The next chunk is only asked for once this one is stored
    /// (AsyncHTTPClient buffers one chunk ahead at most, and then stops reading): TCP's
    /// backpressure (HTTP/1.1), or the stream's flow-control window (HTTP/2, up to 8 MiB),
    /// bounds the memory of a download to file. A body continuing a partial
    /// (a 206 to a resumed request) is judged and reported as the whole body: progress, size
    /// limit and truncation count the bytes the partial already held.
    private func receive(_ body: HTTPClientResponse.Body, head: FetchResponseHead,
                         encoding: ContentDecoder.Encoding?) async throws(FetchError) -> (FetchResult.Body, Int, Int) {
        let sink = try BodySink(request, head: head, expectedSize: encoding == nil ? head.expectedLength : nil)
        let offset = sink.resumedFrom
        let expected = offset > 0 ? sink.resumedTotal : head.expectedLength
        let decoder: ContentDecoder? = if let encoding { try ContentDecoder(encoding, limit: request.maxResponseSize, gauge: gauge) } else { nil }
        var received = offset   // wire bytes: what truncation and progress are judged on
        do throws(FetchError) {
            var chunks = body.makeAsyncIterator()
            while let chunk = try await next(&chunks, expected: expected, received: received) {
                watchdog.activity.touch()
                received += chunk.readableBytes
                watchdog.activity.beginLocalWork()
                defer { watchdog.activity.endLocalWork() }
                try await store(chunk, decoder, sink)
                progress(FetchProgress(received: received, expected: expected))
            }
            if let expected, received < expected { throw FetchError.truncated(expected: expected, received: received) }
            watchdog.activity.beginLocalWork()
            defer { watchdog.activity.endLocalWork() }
            try await decoder?.finish { piece throws(FetchError) in try await sink.append(piece) }
            if sink.stored == 0 { throw FetchError.emptyData }
            return (try sink.finish(), received - offset, offset)
        } catch {
            sink.discard()
            throw error
        }
    }

    private func next(_ chunks: inout HTTPClientResponse.Body.AsyncIterator, expected: Int?,
                      received: Int) async throws(FetchError) -> ByteBuffer? {
        do {
            return try await chunks.next()
        } catch {
            throw FetchErrorMapping.midBody(error, expected: expected, received: received)
        }
    }

    /// Stores a wire chunk, decoded first when there is a decoder (which counts its own output);
    /// counted in the gauge while the transport holds it.
    private func store(_ chunk: ByteBuffer, _ decoder: ContentDecoder?, _ sink: BodySink) async throws(FetchError) {
        gauge.add(chunk.readableBytes)
        defer { gauge.remove(chunk.readableBytes) }
        guard let decoder else { return try await sink.append(chunk) }
        try await decoder.decode(chunk) { piece throws(FetchError) in try await sink.append(piece) }
    }
}
