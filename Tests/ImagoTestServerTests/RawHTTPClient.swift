import NIOCore
import NIOHTTP1
import NIOPosix

/// A response exactly as it came over the wire.
struct RawResponse {
    var head: HTTPResponseHead
    var body: [UInt8]
    /// Whether the response ended properly (`.end` arrived), i.e. was not truncated.
    var isComplete: Bool
    /// What ended an incomplete response, if it was an error rather than a plain close.
    var error: (any Error)?

    var status: Int { Int(head.status.code) }
    func header(_ name: String) -> String? { head.headers.first(name: name) }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// One keep-alive connection to the server, driven request by request.
///
/// Why not URLSession for everything: these tests must see framing headers as sent,
/// truncation as truncation, and must close a connection at an exact moment.
final class RawConnection {
    private var inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>

    fileprivate init(
        inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>,
        outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    ) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// Opens a connection to `host` (default 127.0.0.1; "::1" for IPv6 loopback):`port`, runs
    /// `body`, then closes the connection.
    static func with<Result>(port: Int, host: String = "127.0.0.1",
                             _ body: (RawConnection) async throws -> Result) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(RawConnection(inbound: inbound, outbound: outbound))
        }
    }

    /// Sends one request (no body).
    func send(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: "127.0.0.1")
        head.headers.add(contentsOf: headers)
        // One write, one flush: a server that answers on the head and closes at once (a
        // truncation fault) must not find the `.end` still to be written ("I/O on closed channel").
        try await outbound.write(contentsOf: [.head(head), .end(nil)])
    }

    /// Reads the head of the next response.
    func readHead() async throws -> HTTPResponseHead {
        switch try await inbound.next() {
        case .head(let head): return head
        case let other: throw RawClientError.unexpected("\(String(describing: other))")
        }
    }

    /// Reads body parts until the response ends, the connection closes or fails.
    func readBody() async -> (body: [UInt8], isComplete: Bool, error: (any Error)?) {
        var body: [UInt8] = []
        do {
            while let part = try await inbound.next() {
                switch part {
                case .head: return (body, false, RawClientError.unexpected("second head"))
                case .body(let buffer): body += buffer.readableBytesView
                case .end: return (body, true, nil)
                }
            }
            return (body, false, nil)
        } catch {
            return (body, false, error)
        }
    }

    /// Reads one whole response.
    func readResponse() async throws -> RawResponse {
        let head = try await readHead()
        let (body, isComplete, error) = await readBody()
        return RawResponse(head: head, body: body, isComplete: isComplete, error: error)
    }

    /// Sends a request and reads its response.
    func request(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws
        -> RawResponse
    {
        try await send(path, method: method, headers: headers)
        return try await readResponse()
    }

    /// One request on a connection of its own.
    static func request(
        port: Int, host: String = "127.0.0.1", _ path: String, method: HTTPMethod = .GET,
        headers: [(String, String)] = []
    ) async throws -> RawResponse {
        try await with(port: port, host: host) { try await $0.request(path, method: method, headers: headers) }
    }
}

enum RawClientError: Error {
    case unexpected(String)
}
