import Foundation
import ImagoTestServer
import ImagoTestSupport
import Synchronization
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// HTTP/2 against nginx (HTTPS, h2 offered by ALPN), one nginx for the suite: every strategy
    /// loads over h2 (nginx's `$server_protocol` and the pipeline's `fetchEnd` event both say
    /// so); loads to one host share one connection (nginx's `$connection`, and its count of
    /// accepted connections); cancelling a load mid-body resets its stream only, which nginx
    /// logs as ended early while the others, and a load after it, go on over the same
    /// connection; a held streaming read holds only its own stream (flow control);
    /// `.http1Only`, and plain http, stay on HTTP/1.1.
    @Suite(.sharedHTTP2Nginx) struct NginxHTTP2Tests {
        @Test(arguments: FetchStrategy.allCases)
        func everyStrategyLoadsOverHTTP2(_ strategy: FetchStrategy) async throws {
            let server = try HTTP2Nginx.shared()
            let transport = try server.transport()
            let versions = Mutex<[String?]>([])
            let pipeline = server.pipeline(transport, strategy: strategy) { event in
                if event.kind == .fetchEnd { versions.withLock { $0.append(event.httpVersion) } }
            }
            let (url, uri) = try server.url("/\(HTTP2Nginx.image)", query: "test=strategy-\(strategy)")
            let result = await NginxFixture.load(pipeline, ImageRequest(source: .url(url)))
            try await transport.shutdown()
            try #expect(result.get().pixels == ImageDecoder.decode(TestCorpus.bytes(HTTP2Nginx.image)).pixels)
            let log = try await server.logged([uri])
            #expect(log.map(\.serverProtocol) == ["HTTP/2.0"], "\(strategy): \(log)")
            #expect(versions.withLock { $0 } == ["HTTP/2.0"], "\(strategy): the fetchEnd event names the protocol")
        }

        /// After one load has opened the connection, four at once ride on it as streams: one
        /// connection accepted in all, one `$connection` number on every line.
        @Test func concurrentLoadsShareOneConnection() async throws {
            let server = try HTTP2Nginx.shared()
            let transport = try server.transport()
            let pipeline = server.pipeline(transport)
            let before = try server.nginx.connectionsAccepted(statusPath: HTTP2Nginx.statusPath)
            let first = try server.url("/\(HTTP2Nginx.image)", query: "test=share-0")
            _ = try await NginxFixture.load(pipeline, ImageRequest(source: .url(first.url))).get()
            let others = try (1...4).map { try server.url("/\(HTTP2Nginx.image)", query: "test=share-\($0)") }
            let results = await withTaskGroup(of: Result<ImageResponse, ImageLoadingError>.self) { group in
                for other in others { group.addTask { await NginxFixture.load(pipeline, ImageRequest(source: .url(other.url))) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let after = try server.nginx.connectionsAccepted(statusPath: HTTP2Nginx.statusPath)
            try await transport.shutdown()
            #expect(results.allSatisfy { (try? $0.get()) != nil }, "\(results)")
            let log = try await server.logged([first.uri] + others.map(\.uri))
            #expect(Set(log.map(\.connection)).count == 1, "one connection: \(log.map(\.connection))")
            #expect(log.allSatisfy { $0.serverProtocol == "HTTP/2.0" }, "\(log.map(\.serverProtocol))")
            #expect(after - before - 1 == 1, "one connection accepted for five loads")
        }

        /// A load held mid-body by nginx's rate limit is cancelled while others run beside it on
        /// the same connection: it ends at once with `.cancelled`, nginx logs its stream as
        /// ended early (fewer bytes than the file, not completed), and the others and a load
        /// started after it finish on that same connection.
        @Test func cancellingOneLoadResetsOnlyItsStream() async throws {
            let server = try HTTP2Nginx.shared()
            let transport = try server.transport()
            let pipeline = server.pipeline(transport)
            let slow = try server.url("/\(HTTP2Nginx.slowFile)", query: "test=cancel-slow")
            let (bodyStarted, started) = AsyncStream<Void>.makeStream()
            let slowLoad = Task {
                try await pipeline.response(for: ImageRequest(source: .url(slow.url))) { _ in started.yield() }
            }
            var arrivals = bodyStarted.makeAsyncIterator()
            await arrivals.next()   // the first body bytes: the stream is mid-body now
            let others = try (1...3).map { try server.url("/\(HTTP2Nginx.image)", query: "test=cancel-other-\($0)") }
            let results = await withTaskGroup(of: Result<ImageResponse, ImageLoadingError>.self) { group in
                for other in others { group.addTask { await NginxFixture.load(pipeline, ImageRequest(source: .url(other.url))) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { (try? $0.get()) != nil }, "beside the held stream: \(results)")

            let cancelledAt = ContinuousClock.now
            slowLoad.cancel()
            let outcome = await slowLoad.result
            #expect(ContinuousClock.now - cancelledAt < .seconds(2), "cancelled at once")
            #expect(outcome.failure as? ImageLoadingError == .cancelled, "\(outcome)")
            let slowLine = try #require(try await server.logged([slow.uri]).first)
            #expect(!slowLine.completed && slowLine.bodyBytesSent < HTTP2Nginx.slowSize, "ended early: \(slowLine)")

            let later = try server.url("/\(HTTP2Nginx.image)", query: "test=cancel-later")
            let laterResult = await NginxFixture.load(pipeline, ImageRequest(source: .url(later.url)))
            try await transport.shutdown()
            #expect((try? laterResult.get()) != nil, "the connection goes on: \(laterResult)")
            let log = try await server.logged([slow.uri, later.uri] + others.map(\.uri))
            #expect(Set(log.map(\.connection)).count == 1, "one connection throughout: \(log.map(\.connection))")
        }

        /// A streaming read whose consumer waits (a decoder out of memory, say) holds back its
        /// own stream by HTTP/2 flow control: with the consumer held on its first piece, three
        /// other fetches complete over the same connection, and nginx cannot finish the held
        /// body (12 MiB, more than AsyncHTTPClient's 8 MiB stream window) until it is let go.
        @Test func aHeldStreamingReadHoldsOnlyItsOwnStream() async throws {
            let server = try HTTP2Nginx.shared()
            let size = 12 << 20
            try server.nginx.writeFile("flow/large.bin", [UInt8](repeating: 0xA5, count: size))
            defer { try? server.nginx.removeFile("flow/large.bin") }
            let transport = try server.transport()
            let gate = Gate()
            defer { gate.open() }
            let (firstPieces, firstPiece) = AsyncStream<Void>.makeStream()
            let held = try server.url("/flow/large.bin", query: "test=flow-held")
            var request = FetchRequest(url: held.url, strategy: .stream)
            request.bodyConsumer = BodyConsumerReference(HeldConsumer(gate: gate, firstPiece: firstPiece))
            let heldFetch = Task { await transport.fetchResult(request) }
            var pieces = firstPieces.makeAsyncIterator()
            await pieces.next()   // the consumer is holding its first piece

            let others = try (1...3).map { try server.url("/\(HTTP2Nginx.image)", query: "test=flow-other-\($0)") }
            for other in others {
                let result = await transport.fetchResult(FetchRequest(url: other.url))
                #expect(result.failure == nil, "beside the held stream: \(result)")
            }
            _ = try await server.logged(others.map(\.uri))
            #expect(!server.nginx.accessLog.contains { $0.requestURI == held.uri }, "nginx finished a body nobody read")

            gate.open()
            let result = await heldFetch.value
            try await transport.shutdown()
            #expect(try result.get().receivedBytes == size)
            let log = try await server.logged([held.uri] + others.map(\.uri))
            #expect(Set(log.map(\.connection)).count == 1, "one connection: \(log.map(\.connection))")
            #expect(log.allSatisfy { $0.completed }, "\(log)")
        }

        /// HTTP/1.1 where it is asked for, and where there is no TLS to offer h2 on.
        @Test(arguments: [(AsyncHTTPClientTransport.HTTPVersionPolicy.http1Only, "https"), (.automatic, "http")])
        func http1OnlyAndPlainHTTPStayOnHTTP1(_ policy: AsyncHTTPClientTransport.HTTPVersionPolicy, _ scheme: String) async throws {
            let server = try HTTP2Nginx.shared()
            let transport = try server.transport(policy)
            let uri = "/\(HTTP2Nginx.image)?test=http1-\(policy)-\(scheme)"
            let url = try #require(scheme == "https" ? server.nginx.httpsURL(for: uri) : server.nginx.url(for: uri))
            let result = await transport.fetchResult(FetchRequest(url: url))
            try await transport.shutdown()
            #expect(try result.get().head.httpVersion == "HTTP/1.1")
            let log = try await server.logged([uri])
            #expect(log.map(\.serverProtocol) == ["HTTP/1.1"], "\(policy) over \(scheme)")
        }
    }
}

/// A streaming consumer that takes its first piece and waits at it until `gate` opens (the
/// nginx HTTP/2 tests and the transport contract over HTTP/2).
final class HeldConsumer: StreamingBodyConsumer {
    let gate: Gate
    let firstPiece: AsyncStream<Void>.Continuation

    init(gate: Gate, firstPiece: AsyncStream<Void>.Continuation) {
        self.gate = gate
        self.firstPiece = firstPiece
    }

    func consume(_ piece: Data) async throws(FetchError) {
        firstPiece.yield()
        do { try await gate.waitUntilOpen(timeout: .seconds(30)) } catch { throw .bodyRefused("the test never let the body go on") }
    }
}

extension ImageTransport {
    /// `fetch` as a Result, without progress.
    func fetchResult(_ request: FetchRequest) async -> Result<FetchResult, FetchError> {
        do throws(FetchError) {
            return .success(try await fetch(request) { _ in })
        } catch {
            return .failure(error)
        }
    }
}
