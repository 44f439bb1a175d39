import Foundation
import NIOCore
import NIOHTTP1

/// One connection's request handling over HTTP/1, or one stream's over HTTP/2: counts,
/// routes, and hands each request to a ``ResponseWriter``.
///
/// Why it tracks "response in progress": a client that cancels shows up to the server only
/// as a connection closing (HTTP/1) or a stream reset (HTTP/2) while a response is
/// unfinished; those are the events `connectionsClosedByClient` and `streamsResetByClient`
/// exist for. Over HTTP/1 it sits after NIO's `HTTPServerPipelineHandler`, which holds
/// pipelined requests until `.end` is written; an HTTP/2 stream carries one request. Either
/// way there is at most one request in flight here.
final class HTTPConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the handler's channel is: closing it ends a connection, or resets one stream.
    enum Scope {
        /// An HTTP/1 connection (plain or TLS).
        case connection
        /// One HTTP/2 stream of a connection.
        case http2Stream
    }

    private let core: ServerCore
    private let activity: ConnectionActivity
    private let scope: Scope
    private var pendingHead: HTTPRequestHead?
    private var responseInProgress = false {
        didSet {
            if responseInProgress != oldValue { activity.responsesInProgress += responseInProgress ? 1 : -1 }
        }
    }
    private var closedByServer = false {
        didSet { if closedByServer && scope == .connection { activity.closedByServer = true } }
    }
    /// The client reset this HTTP/2 stream (RST_STREAM): NIOHTTP2 reports it as an error
    /// just before the stream's channel goes inactive.
    private var resetByClient = false
    private var isActive = false
    private var writer: ResponseWriter?

    init(core: ServerCore, activity: ConnectionActivity, scope: Scope) {
        self.core = core
        self.activity = activity
        self.scope = scope
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added after ALPN over TLS: the channel may be active already.
        isActive = context.channel.isActive
    }

    func channelActive(context: ChannelHandlerContext) {
        isActive = true
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        writer?.abort()
        writer = nil
        // A stream that ends because its connection did is counted with the connection.
        if scope == .http2Stream && responseInProgress && resetByClient && !closedByServer && !core.isShuttingDown {
            core.counters.streamResetByClient()
        }
        responseInProgress = false
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        writer?.abort()
        writer = nil
        responseInProgress = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            pendingHead = head
            responseInProgress = true
            core.counters.requestReceived(path: Self.path(of: head.uri), headers: head.headers.map { ($0.name, $0.value) },
                                          httpVersion: "HTTP/\(head.version.major).\(head.version.minor)")
        case .body:
            break  // request bodies are not used; GET and HEAD have none
        case .end:
            guard let head = pendingHead else { return }
            pendingHead = nil
            respond(to: head, context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writer?.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Typically a reset by the client mid-write (a TCP reset, or an HTTP/2 RST_STREAM);
        // channelInactive does the counting.
        if scope == .http2Stream && HTTP2StreamReset.isReset(error) { resetByClient = true }
        context.close(promise: nil)
    }

    // MARK: Routing

    /// The path part of a request target, percent-decoded: no query, no fragment. Routes
    /// and counters use it, so `/a b.jpg` names what URLSession requests as `/a%20b.jpg`.
    static func path(of uri: String) -> String {
        let end = uri.firstIndex { $0 == "?" || $0 == "#" } ?? uri.endIndex
        let raw = String(uri[..<end])
        return raw.removingPercentEncoding ?? raw
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = Self.path(of: head.uri)
        guard head.method == .GET || head.method == .HEAD else {
            let plan = ResponsePlanner.plain(
                request: head, status: .methodNotAllowed, faults: core.defaultFaults,
                extraHeaders: ["Allow": "GET, HEAD"])
            start(plan, path: path, context: context)
            return
        }
        if let hit = core.routes.take(path) {
            let resource = Resource(
                source: .memory(hit.body), size: hit.body.count, contentType: hit.contentType,
                entityTag: hit.entityTag, lastModifiedSeconds: hit.lastModifiedSeconds)
            start(ResponsePlanner.plan(request: head, resource: resource, faults: hit.faults ?? core.defaultFaults),
                  path: path, context: context)
            return
        }
        guard let resolver = core.fileResolver else {
            start(notFound(head), path: path, context: context)
            return
        }
        // Opening and stat-ing block: do it on the thread pool, answer back on the loop.
        let opened = core.threadPool.runIfActive(eventLoop: context.eventLoop) { resolver.open(path: path) }
        opened.assumeIsolated().whenComplete { [self] result in
            let file = (try? result.get()) ?? nil
            guard isActive else {
                try? file?.handle.close()
                return
            }
            guard let file else {
                start(notFound(head), path: path, context: context)
                return
            }
            let resource = Resource(
                source: .file(file.handle), size: file.size, contentType: file.contentType,
                entityTag: file.entityTag, lastModifiedSeconds: file.lastModifiedSeconds)
            start(ResponsePlanner.plan(request: head, resource: resource, faults: core.defaultFaults),
                  path: path, context: context)
        }
    }

    private func notFound(_ head: HTTPRequestHead) -> ResponsePlan {
        ResponsePlanner.plain(request: head, status: .notFound, faults: core.defaultFaults)
    }

    private func start(_ plan: ResponsePlan, path: String, context: ChannelHandlerContext) {
        let writer = ResponseWriter(
            context: context, plan: plan, path: path, counters: core.counters, fileIO: core.fileIO,
            chunkSize: core.writeChunkSize,
            onEnd: { [unowned self] endWritten in
                responseInProgress = false
                self.writer = nil
                if plan.closeAfterResponse {
                    closedByServer = true
                    endWritten.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                }
            },
            onCloseEarly: { [unowned self] in
                closedByServer = true
            })
        self.writer = writer
        writer.start()
    }
}
