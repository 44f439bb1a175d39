import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A loopback HTTP/1.1 server for tests and benchmarks: serves a directory and in-memory
/// routes, with ETag / Last-Modified / Range support and injectable faults. With
/// ``Configuration/tls`` it serves HTTPS instead, and HTTP/2 to a client that picks `h2` by
/// ALPN (``TLS``), with the same routes, faults, gates and counters per stream.
///
/// Why a real server on 127.0.0.1 rather than a mocked URL protocol: the loading pipeline,
/// the conformance suite and the benchmarks must see real sockets, real HTTP framing,
/// real timing and real connection loss.
///
/// ```swift
/// let server = try await TestServer.start()
/// server.setRoute("/a.jpg", Route(body: jpegBytes, contentType: "image/jpeg"))
/// let (data, _) = try await URLSession.shared.data(from: server.url(for: "/a.jpg"))
/// try await server.counters.waitUntil { $0.responsesCompleted(for: "/a.jpg") == 1 }
/// try await server.shutdown()
/// ```
public final class TestServer: Sendable {
    /// How a server is started. Every knob has a default, stated on it.
    public struct Configuration: Sendable {
        /// The TCP port to bind on ``host``. Default `0`: an ephemeral port the kernel
        /// picks (read it back from ``TestServer/port``).
        public var port: Int
        /// The loopback address to bind: `"127.0.0.1"` or `"::1"` (IPv6; ``TestServer/baseURL``
        /// then has the bracketed form `http://[::1]:PORT`). Default `"127.0.0.1"`.
        public var host: String
        /// A directory whose files are served at their relative paths. Default `nil`: only
        /// in-memory routes (everything else is 404).
        public var root: URL?
        /// Faults for files, for routes without their own ``Route/faults``, and for 404 /
        /// 405 answers. Default ``Faults/none``. Changeable later with
        /// ``TestServer/setDefaultFaults(_:)``.
        public var defaultFaults: Faults
        /// The largest body piece written (and read from a file) at once, in bytes; the
        /// channel's write buffer holds at most about four of them. Default `65_536`.
        public var writeChunkSize: Int
        /// Event loop threads serving connections. Default `1`: enough for loopback tests,
        /// and it keeps the order of events on all connections simple.
        public var eventLoopThreads: Int
        /// HTTPS, and the protocols offered by ALPN (HTTP/2 and HTTP/1.1 unless told). Default
        /// `nil`: plain HTTP/1.1 (``TestServer/baseURL`` is `http://…`, else `https://…`).
        public var tls: TLS?

        /// A configuration; every knob has the default its doc comment states.
        public init(
            port: Int = 0, root: URL? = nil, defaultFaults: Faults = .none, writeChunkSize: Int = 65_536,
            eventLoopThreads: Int = 1, host: String = "127.0.0.1", tls: TLS? = nil
        ) {
            self.port = port
            self.host = host
            self.root = root
            self.defaultFaults = defaultFaults
            self.writeChunkSize = writeChunkSize
            self.eventLoopThreads = eventLoopThreads
            self.tls = tls
        }
    }

    /// `http://127.0.0.1:PORT` (or `http://[::1]:PORT`; `https` with ``Configuration/tls``),
    /// no trailing slash.
    public let baseURL: URL
    /// The bound port.
    public let port: Int
    private let core: ServerCore
    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel

    private init(core: ServerCore, group: MultiThreadedEventLoopGroup, serverChannel: any Channel, host: String,
                 port: Int, scheme: String) {
        self.core = core
        self.group = group
        self.serverChannel = serverChannel
        self.port = port
        let authority = host.contains(":") ? "[\(host)]" : host
        self.baseURL = URL(string: "\(scheme)://\(authority):\(port)")!
    }

    /// Binds the configured host (127.0.0.1 unless told) and starts serving. Throws if the
    /// port is taken, the address is not available (no IPv6 loopback, say), `root` is not a
    /// directory or the TLS certificate and key are unusable.
    public static func start(_ configuration: Configuration = Configuration()) async throws -> TestServer {
        let resolver = try configuration.root.map { try FileResolver(root: $0) }
        let core = ServerCore(
            fileResolver: resolver, defaultFaults: configuration.defaultFaults,
            writeChunkSize: configuration.writeChunkSize)
        let tls = try configuration.tls.map { tls throws(TestServerError) in (try tls.makeContext(), tls.protocols) }
        let pipeline = ConnectionPipeline(core: core, tls: tls)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        let chunk = core.writeChunkSize
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.writeBufferWaterMark, value: .init(low: chunk, high: 4 * chunk))
                .childChannelInitializer { channel in pipeline.configure(channel) }
                .bind(host: configuration.host, port: configuration.port).get()
            guard let port = channel.localAddress?.port else {
                throw TestServerError.invalidConfiguration("bound socket has no port")
            }
            return TestServer(core: core, group: group, serverChannel: channel, host: configuration.host, port: port,
                              scheme: configuration.tls == nil ? "http" : "https")
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Stops accepting, closes every open connection (held and stalled ones too) and stops
    /// the event loops. Closing connections here does not count as client cancels. Calling
    /// it again does nothing.
    public func shutdown() async throws {
        guard let connections = core.beginShutdown() else { return }
        try? await serverChannel.close()
        for connection in connections {
            try? await connection.close()
        }
        try await group.shutdownGracefully()
    }

    /// Counters of requests, bytes and connections, readable and awaitable.
    public var counters: ServerCounters { core.counters }

    /// The URL for `path` (starting with `/`; a query may follow) on this server.
    /// Characters not allowed in a URL path, such as spaces, are percent-encoded.
    public func url(for path: String) -> URL {
        if let url = URL(string: baseURL.absoluteString + path) { return url }
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        return URL(string: baseURL.absoluteString + encoded) ?? baseURL
    }

    /// Serves `route` at `path` (exact match on the request's percent-decoded path, query
    /// ignored; `/a b.jpg` matches a request for `/a%20b.jpg`),
    /// replacing any route there and restarting its request count. Takes effect for
    /// requests whose head arrives after this returns.
    public func setRoute(_ path: String, _ route: Route) {
        core.routes.set(path, route)
    }

    /// Stops serving the route at `path` (a file there, if any, shows through again).
    public func removeRoute(_ path: String) {
        core.routes.remove(path)
    }

    /// Removes every in-memory route.
    public func removeAllRoutes() {
        core.routes.removeAll()
    }

    /// The faults for files, routes without their own, and 404 / 405 answers.
    public var defaultFaults: Faults { core.defaultFaults }

    /// Replaces the server-wide default faults for requests arriving from now on.
    public func setDefaultFaults(_ faults: Faults) {
        core.defaultFaults = faults
    }
}
