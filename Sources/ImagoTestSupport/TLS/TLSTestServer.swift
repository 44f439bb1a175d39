import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A minimal HTTPS server on 127.0.0.1 with a certificate made at test time: every GET gets
/// `200` and a fixed body. Only for a transport's TLS checks (trusted, untrusted); the
/// fault-injecting TestServer stays plain HTTP.
public final class TLSTestServer: Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.port = port
        self.group = group
        self.channel = channel
    }

    /// `https://127.0.0.1:PORT`, no trailing slash.
    public var baseURL: URL { URL(string: "https://127.0.0.1:\(port)")! }

    /// Starts a server presenting `certificate` and answering every request with `body`.
    public static func start(certificate: SelfSignedCertificate, body: [UInt8]) async throws -> TLSTestServer {
        let chain = try NIOSSLCertificate.fromPEMFile(certificate.certificatePath).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: certificate.keyPath, format: .pem)
        let context = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(FixedResponder(body: body))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            return TLSTestServer(port: channel.localAddress?.port ?? 0, group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Closes the listener and its event loop.
    public func shutdown() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

/// Answers every request with 200 and the body.
private final class FixedResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let body: [UInt8]

    init(body: [UInt8]) { self.body = body }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let head = HTTPResponseHead(version: .http1_1, status: .ok,
                                    headers: ["Content-Length": "\(body.count)", "Content-Type": "application/octet-stream"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)   // a client that refused our certificate
    }
}
