import Foundation
import ImagoTestSupport
import Testing
@_spi(TestSupport) @testable import ImagoTestServer

/// The launcher's TLS: the certificate set openssl makes (checked by `openssl verify` itself),
/// the `ssl`/`http2` lines as each nginx version spells them, and a TLS server that starts,
/// counts its connections and leaves nothing behind.
@Suite struct NginxTLSLauncherTests {
    @Test func nginxVersionsAreRead() {
        #expect(NginxHTTP2Syntax.parse("nginx version: nginx/1.22.1\n") == [1, 22, 1])
        #expect(NginxHTTP2Syntax.parse("nginx version: nginx/1.25.1 (Ubuntu)\n") == [1, 25, 1])
        #expect(NginxHTTP2Syntax.parse("nginx: command not found") == nil)
    }

    @Test(arguments: [NginxHTTP2Syntax.listenParameter, .directive])
    func http2IsSpelledAsTheVersionWants(_ syntax: NginxHTTP2Syntax) throws {
        let root = try TemporaryDirectory.make("imago-nginx-tls-config")
        defer { try? FileManager.default.removeItem(at: root) }
        let layout = try NginxLayout.make(in: root)
        let pair = TestCertificates.Pair(certificatePEM: [], keyPEM: [])
        let text = try layout.configuration(port: 8080, ipv6: true, locations: [], https: (8443, NginxTLS(pair), syntax))
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let expected = syntax == .listenParameter
            ? ["listen 127.0.0.1:8443 ssl http2;", "listen [::1]:8443 ssl http2;"]
            : ["listen 127.0.0.1:8443 ssl;", "listen [::1]:8443 ssl;", "http2 on;"]
        for line in expected + ["listen 127.0.0.1:8080;", "ssl_certificate \"\(layout.tlsCertificate.path)\";"] {
            #expect(lines.contains(line), "\(line) in:\n\(text)")
        }
        #expect(lines.contains("http2 on;") == (syntax == .directive))
        let withoutHTTP2 = try layout.configuration(port: 8080, ipv6: false, locations: [],
                                                    https: (8443, NginxTLS(pair, http2: false), syntax))
        #expect(!withoutHTTP2.contains("http2"), "\(withoutHTTP2)")
    }

    @Test func theCertificateSetVerifiesAsItsNamesSay() throws {
        let certificates = try TestCertificates.sharedOrSkip()
        let directory = try TemporaryDirectory.make("imago-certificates-check")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = ["ca": certificates.authorityPEM, "other": certificates.otherAuthorityPEM, "server": certificates.server.certificatePEM,
                     "expired": certificates.expired.certificatePEM, "wrong": certificates.wrongName.certificatePEM]
        for (name, bytes) in files { try Data(bytes).write(to: directory.appendingPathComponent("\(name).pem")) }
        let openssl = try OpenSSLCommand(executable: nil)
        func verify(_ name: String, ca: String = "ca", _ options: [String] = []) throws -> ShortCommand.Outcome {
            try ShortCommand.run(openssl.executable, ["verify", "-CAfile", directory.appendingPathComponent("\(ca).pem").path]
                                 + options + [directory.appendingPathComponent("\(name).pem").path]).get()
        }
        #expect(try verify("server", ["-verify_ip", "127.0.0.1"]).status == 0)
        #expect(try verify("server", ["-verify_hostname", "localhost"]).status == 0)
        #expect(try verify("server", ca: "other").status != 0, "the other CA signed nothing")
        #expect(try verify("expired").stderr.contains("expired"))
        #expect(try verify("wrong", ["-verify_hostname", TestCertificates.wrongHostName]).status == 0)
        #expect(try verify("wrong", ["-verify_ip", "127.0.0.1"]).status != 0)
    }

    @Test func aMissingOrFailingOpensslIsTypedAndLeavesNothing() throws {
        let root = try TemporaryDirectory.make("imago-certificates-failing")
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: TestCertificatesError.unavailable(reason: "/nonexistent/openssl is not an executable file")) {
            try TestCertificates.make(executable: "/nonexistent/openssl", temporaryRoot: root)
        }
        do {
            _ = try TestCertificates.make(executable: "/bin/false", temporaryRoot: root)
            Issue.record("/bin/false made certificates")
        } catch {
            guard case .failed(_, let status, _) = error else { Issue.record("expected .failed, got \(error)"); return }
            #expect(status == 1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty, "the generation directory is removed")
    }

    @Test(.nginxInstalled) func aTLSServerCountsConnectionsAndStopsLeavingNothing() async throws {
        let certificates = try TestCertificates.sharedOrSkip()
        let root = try TemporaryDirectory.make("imago-nginx-tls")
        defer { try? FileManager.default.removeItem(at: root) }
        let nginx = try await NginxServer.startOrSkip(.init(locations: [.exact("/status", .stubStatus)], temporaryRoot: root,
                                                             tls: NginxTLS(certificates.server)))
        let httpsPort = try #require(nginx.httpsPort)
        #expect(httpsPort != nginx.port)
        #expect(nginx.httpsURL(for: "/a.png")?.absoluteString == "https://127.0.0.1:\(httpsPort)/a.png")
        let before = try nginx.connectionsAccepted(statusPath: "/status")
        #expect(LoopbackPorts.accepts(.ipv4, port: httpsPort))   // a connection without a handshake
        let after = try nginx.connectionsAccepted(statusPath: "/status")
        #expect(after - before - 1 == 1)
        #expect(nginx.accessLog.map(\.path) == ["/status", "/status"], "no request but the two status readings")
        await nginx.stop()
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty, "key and certificate go with the server")
    }
}
