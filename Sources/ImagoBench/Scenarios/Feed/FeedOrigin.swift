import Foundation
import Imago
import ImagoTestServer

/// Where the feed scenario's thumbnails come from: one nginx over TLS (HTTP/2 offered beside
/// HTTP/1.1) serving them under `/feed/`, a private CA it is signed by (as a PEM file, for the
/// transport and for curl), and a delay proxy in front of it per round-trip time.
final class FeedOrigin: Sendable {
    let nginx: NginxServer
    /// The CA's certificate, written into the scratch directory: `--cacert` for curl.
    let authorityFile: URL
    /// The CA, as the transport trusts it.
    let trustRoots: AsyncHTTPClientTransport.TrustRoots
    private let scratch: ScratchDirectory

    private init(nginx: NginxServer, authorityFile: URL, trustRoots: AsyncHTTPClientTransport.TrustRoots,
                 scratch: ScratchDirectory) {
        self.nginx = nginx
        self.authorityFile = authorityFile
        self.trustRoots = trustRoots
        self.scratch = scratch
    }

    /// Makes the certificates, writes `thumbnails` into nginx's docroot under `feed/` and
    /// starts nginx with an HTTPS listener. Throws where openssl or nginx cannot run (the
    /// scenario turns that into skipped rows with the reason).
    static func start(_ thumbnails: [FeedThumbnails.Thumbnail]) async throws -> FeedOrigin {
        let certificates = try TestCertificates.shared.get()
        let scratch = try ScratchDirectory("feed")
        let authorityFile = scratch.url.appendingPathComponent("ca.pem")
        try Data(certificates.authorityPEM).write(to: authorityFile)
        let roots = AsyncHTTPClientTransport.TrustRoots.only(
            try AsyncHTTPClientTransport.TrustRoots.certificates(inPEMFile: authorityFile.path))
        var files: [String: [UInt8]] = [:]
        for thumbnail in thumbnails { files["feed/\(thumbnail.name)"] = thumbnail.bytes }
        let nginx = try await NginxServer.start(.init(files: files, tls: NginxTLS(certificates.server)))
        return FeedOrigin(nginx: nginx, authorityFile: authorityFile, trustRoots: roots, scratch: scratch)
    }

    /// Directory for download-to-file temporaries (removed with the origin's scratch directory).
    var downloads: URL { scratch.url }

    /// A delay proxy in front of nginx's HTTPS port with this round-trip time (the TCP
    /// handshake paid over the link too, as the proxy does by default).
    func proxy(roundTripTime: Duration) async throws -> DelayProxy {
        guard let port = nginx.httpsPort else { throw BenchError("nginx started without its HTTPS listener") }
        return try await DelayProxy.start(upstream: .init(port: port), configuration: .init(roundTripTime: roundTripTime))
    }

    /// `https://127.0.0.1:PROXYPORT/feed/NAME?run=TAG`: a thumbnail through `proxy`, tagged so
    /// nginx's access log tells one sample's requests from another's.
    static func url(_ proxy: DelayProxy, _ name: String, tag: String) -> URL {
        URL(string: "https://127.0.0.1:\(proxy.port)/feed/\(name)?run=\(tag)")!
    }

    /// Requests nginx has logged for `tag` so far.
    func requests(tag: String) -> Int {
        nginx.accessLog.filter { $0.requestURI.hasSuffix("?run=\(tag)") }.count
    }

    /// Waits (up to 2 s) until nginx has logged at least `atLeast` requests for `tag`, then
    /// returns how many it logged: nginx writes a line once a response is sent, which can come a
    /// moment after the client has read its last byte.
    func loggedRequests(tag: String, atLeast: Int) async -> Int {
        let lines = try? await nginx.waitForAccessLog("\(atLeast) requests for \(tag)", timeout: .seconds(2)) { entries in
            entries.filter { $0.requestURI.hasSuffix("?run=\(tag)") }.count >= atLeast
        }
        return lines.map { $0.filter { $0.requestURI.hasSuffix("?run=\(tag)") }.count } ?? requests(tag: tag)
    }

    func stop() async { await nginx.stop() }
}
