import Foundation
import ImagoTestSupport
import Testing
@testable import Imago

/// `TrustRoots.certificates(inPEMFile:)`: a CA file that cannot be used fails before any fetch,
/// typed, with one readable line.
@Suite struct TrustRootsTests {
    @Test func aMissingFileOrADirectoryIsUnreadable() throws {
        let directory = try TemporaryDirectory.make("imago-trust-roots")
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("none.pem").path
        #expect(throws: TrustRootsError.unreadable(path: missing, reason: "no such file")) {
            try AsyncHTTPClientTransport.TrustRoots.certificates(inPEMFile: missing)
        }
        #expect(throws: TrustRootsError.unreadable(path: directory.path, reason: "is a directory")) {
            try AsyncHTTPClientTransport.TrustRoots.certificates(inPEMFile: directory.path)
        }
        #expect(TrustRootsError.unreadable(path: "/x.pem", reason: "no such file").description == "/x.pem: no such file")
    }

    @Test(arguments: ["", "not a certificate\n", "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"])
    func aFileWithoutACertificateIsRefused(_ text: String) throws {
        let directory = try TemporaryDirectory.make("imago-trust-roots")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.pem")
        try Data(text.utf8).write(to: file)
        do {
            _ = try AsyncHTTPClientTransport.TrustRoots.certificates(inPEMFile: file.path)
            Issue.record("\(text.debugDescription) was taken for certificates")
        } catch {
            guard case .notCertificates(let path, let reason) = error else { Issue.record("got \(error)"); return }
            #expect(path == file.path)
            #expect(!reason.contains("\n"), "one line: \(reason)")
        }
    }
}
