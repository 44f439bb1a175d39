import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing

/// `imago load --ca-file PEM` against nginx over HTTPS with the test process's certificates:
/// the private CA makes the load succeed, over HTTP/2 (nginx offers it) or with `--http1`
/// HTTP/1.1, as the summary's `"protocols"` says; a CA that did not sign the server's certificate
/// fails it with a one-line TLS reason; a missing file, or `--transport urlsession`, is refused
/// before anything is fetched (and so is `--http1`).
@Suite struct LoadCAFileTests {
    static let image = "png/rgb-8.png"

    /// nginx serving the corpus image over HTTPS with the good certificate, a directory holding
    /// `ca.pem` (the private CA) and `other-ca.pem` (a CA that signed nothing), and the image's
    /// https URL, for `body`; everything is removed afterwards.
    private func withServer(_ body: (_ url: String, _ directory: URL) async throws -> Void) async throws {
        let certificates = try TestCertificates.sharedOrSkip()
        let png = try Data(contentsOf: DecodeCommandTests.root.appendingPathComponent("Corpus/\(Self.image)"))
        try await TemporaryDirectory.with("imago-cli-ca") { directory in
            try Data(certificates.authorityPEM).write(to: directory.appendingPathComponent("ca.pem"))
            try Data(certificates.otherAuthorityPEM).write(to: directory.appendingPathComponent("other-ca.pem"))
            let nginx = try await NginxServer.startOrSkip(.init(files: ["a.png": [UInt8](png)], tls: NginxTLS(certificates.server)))
            do {
                let url = try #require(nginx.httpsURL(for: "/a.png"))
                try await body(url.absoluteString, directory)
            } catch {
                await nginx.stop()
                throw error
            }
            await nginx.stop()
        }
    }

    /// nginx offers HTTP/2: the load takes it, unless `--http1`; the summary says which.
    @Test(.nginxInstalled, arguments: [([String](), "HTTP/2.0"), (["--http1"], "HTTP/1.1")])
    func thePrivateCALoadsOverHTTPS(_ flags: [String], _ protocolName: String) async throws {
        try await withServer { url, directory in
            let result = try await CommandRunner.run(["load", url, "--ca-file", directory.appendingPathComponent("ca.pem").path] + flags)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains(#""phase":"success""#), "\(result.stdout)")
            #expect(result.stdout.contains(#""protocols":{"\#(protocolName)":1}"#), "\(result.stdout)")
        }
    }

    @Test(.nginxInstalled) func aCAThatDidNotSignTheCertificateFailsWithOneTLSLine() async throws {
        try await withServer { url, directory in
            let result = try await CommandRunner.run(["load", url, "--ca-file", directory.appendingPathComponent("other-ca.pem").path])
            #expect(result.status == 1)
            let port = try #require(URL(string: url)?.port)
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
            #expect(errors == ["error: \(url): tls(certificate not trusted (unknown CA, expired or not yet valid: "
                               + "CERTIFICATE_VERIFY_FAILED) for 127.0.0.1:\(port))"], "\(result.stderr)")
        }
    }

    @Test func aMissingCAFileIsOneLineAndExit66() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("imago-no-ca-\(UUID()).pem").path
        let result = try await CommandRunner.run(["load", "https://127.0.0.1:9/a.png", "--ca-file", missing])
        #expect(result.status == 66)
        #expect(result.stderr == "error: --ca-file \(missing): no such file\n")
        #expect(result.stdout.isEmpty, "nothing was loaded")
    }

    @Test func aFileWithoutCertificatesIsOneLineAndExit65() async throws {
        try await TemporaryDirectory.with("imago-cli-ca") { directory in
            let file = directory.appendingPathComponent("empty.pem")
            try Data("not a certificate\n".utf8).write(to: file)
            let result = try await CommandRunner.run(["load", "https://127.0.0.1:9/a.png", "--ca-file", file.path])
            #expect(result.status == 65)
            #expect(result.stderr.hasPrefix("error: --ca-file \(file.path): "), "\(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
        }
    }

    @Test func urlSessionRefusesHTTP1Only() async throws {
        let result = try await CommandRunner.run(["load", "https://127.0.0.1:9/a.png", "--transport", "urlsession", "--http1"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--http1 needs --transport ahc"), "\(result.stderr)")
    }

    @Test func urlSessionRefusesACAFile() async throws {
        let result = try await CommandRunner.run(["load", "https://127.0.0.1:9/a.png", "--transport", "urlsession", "--ca-file", "/x.pem"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--ca-file needs --transport ahc"), "\(result.stderr)")
    }
}
