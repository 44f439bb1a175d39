import Foundation

/// A throwaway certificate for 127.0.0.1 and localhost, made with the `openssl` command.
public struct SelfSignedCertificate: Sendable {
    /// The PEM certificate file.
    public let certificatePath: String
    /// The PEM private key file (unencrypted).
    public let keyPath: String

    /// Writes `cert.pem` and `key.pem` into `directory`; skips the running test (``TestSkip``)
    /// where there is no `openssl` that can make them.
    public static func make(in directory: URL) throws -> SelfSignedCertificate {
        guard let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first(where: FileManager.default.isExecutableFile)
        else { try TestSkip.skip("no openssl command to make a self-signed certificate with") }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let run = try ChildProcessRunner.runBlocking(
            URL(fileURLWithPath: openssl),
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
            timeout: .seconds(60))
        // An openssl too old for -addext is one this machine lacks, as before: a skip.
        guard run.status == 0 else { try TestSkip.skip("openssl could not make a certificate (exit \(run.status)): \(run.stderr)") }
        return SelfSignedCertificate(certificatePath: certificate, keyPath: key)
    }
}
