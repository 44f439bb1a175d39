import Foundation

/// A private certificate authority and the server certificates HTTPS tests need, made with
/// the `openssl` command (Debian's): a good one for 127.0.0.1 and localhost, an expired one,
/// and one for another host name, all signed by the CA; and a second CA that signed none of
/// them.
///
/// ```swift
/// let certificates = try TestCertificates.shared.get()
/// let nginx = try await NginxServer.start(.init(tls: .init(certificates.server)))
/// // trust certificates.authorityPEM in the client, load nginx.httpsURL(for: "/a.png")
/// ```
///
/// Why PEM bytes and not files: making keys takes a moment, so ``shared`` makes the set once per
/// process, in a temporary directory it removes at once; whoever needs files writes the bytes
/// into a directory of its own (``NginxServer`` writes its certificate into its own directory,
/// removed when it stops). Nothing is left behind. EC keys (prime256v1) keep it fast: the whole
/// set takes about 0.1 s.
public struct TestCertificates: Sendable {
    /// A certificate and its unencrypted private key, PEM-encoded.
    public struct Pair: Sendable, Hashable {
        /// The certificate (PEM).
        public var certificatePEM: [UInt8]
        /// Its private key (PEM, unencrypted).
        public var keyPEM: [UInt8]

        /// A pair of PEM certificate and key.
        public init(certificatePEM: [UInt8], keyPEM: [UInt8]) {
            self.certificatePEM = certificatePEM
            self.keyPEM = keyPEM
        }
    }

    /// The private CA's certificate (PEM): what a client trusts to accept ``server``.
    public let authorityPEM: [UInt8]
    /// A CA that signed nothing here: a client trusting only it sees every certificate above
    /// as issued by an unknown CA.
    public let otherAuthorityPEM: [UInt8]
    /// Valid for two days, for `IP:127.0.0.1`, `IP:::1` and `DNS:localhost` (subjectAltName).
    public let server: Pair
    /// For the same names, but expired: its notAfter lies a day before its notBefore (now).
    public let expired: Pair
    /// Valid, but only for ``wrongHostName``: a client asking for 127.0.0.1 must refuse it.
    public let wrongName: Pair

    /// The one name ``wrongName`` is valid for.
    public static let wrongHostName = "wrong.imago.invalid"

    /// The set for this process, made on first use (and the error, if that failed, for every
    /// later use: a machine without openssl does not get better during a test run).
    public static let shared: Result<TestCertificates, TestCertificatesError> = Result { () throws(TestCertificatesError) in
        try make()
    }

    /// Makes a new set with `openssl` (`executable`, default: `/usr/bin/openssl`, else the
    /// first `openssl` on `PATH`) in a fresh temporary directory inside `temporaryRoot`
    /// (default: the system temporary directory), removed before it returns.
    public static func make(executable: String? = nil,
                            temporaryRoot: URL = FileManager.default.temporaryDirectory) throws(TestCertificatesError) -> TestCertificates {
        let openssl = try OpenSSLCommand(executable: executable)
        let directory = temporaryRoot.appendingPathComponent("imago-certificates-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem("cannot create \(directory.path): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = CertificateFiles(directory: directory)
        for name in ["ca", "other-ca"] {
            try openssl.run(["req", "-x509", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", files.path("\(name).key"), "-out", files.path("\(name).pem"), "-days", "2",
                             "-subj", "/CN=Imago Test \(name)",
                             "-addext", "basicConstraints=critical,CA:TRUE",
                             "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        }
        let localNames = "IP:127.0.0.1,IP:::1,DNS:localhost"
        return TestCertificates(
            authorityPEM: try files.read("ca.pem"),
            otherAuthorityPEM: try files.read("other-ca.pem"),
            server: try signed("server", names: localNames, days: 2, openssl, files),
            // openssl 3.0 has no option for a notBefore in the past; -days -1 puts notAfter a day
            // before notBefore (now), which every verifier reports as expired.
            expired: try signed("expired", names: localNames, days: -1, openssl, files),
            wrongName: try signed("wrong", names: "DNS:\(wrongHostName)", days: 2, openssl, files))
    }

    /// A key and a certificate for `names` (subjectAltName), signed by the CA in `files`.
    private static func signed(_ name: String, names: String, days: Int, _ openssl: OpenSSLCommand,
                               _ files: CertificateFiles) throws(TestCertificatesError) -> Pair {
        try files.write("\(name).ext", "subjectAltName=\(names)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        try openssl.run(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                         "-keyout", files.path("\(name).key"), "-out", files.path("\(name).csr"), "-subj", "/CN=\(name)"])
        try openssl.run(["x509", "-req", "-in", files.path("\(name).csr"), "-CA", files.path("ca.pem"),
                         "-CAkey", files.path("ca.key"), "-set_serial", "\(UInt32.random(in: 1...UInt32.max))",
                         "-days", "\(days)", "-extfile", files.path("\(name).ext"), "-out", files.path("\(name).pem")])
        return Pair(certificatePEM: try files.read("\(name).pem"), keyPEM: try files.read("\(name).key"))
    }
}

/// Why ``TestCertificates`` could not be made. `unavailable` is the case a test turns into a
/// skip (this machine has no openssl); the others are failures, with openssl's own words.
public enum TestCertificatesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No openssl command could be run here (where it was looked for).
    case unavailable(reason: String)
    /// openssl ran and failed (its arguments, exit status and standard error).
    case failed(arguments: String, status: Int32, stderr: String)
    /// The temporary directory or a file in it could not be written or read.
    case fileSystem(String)

    /// `openssl …: ` and the detail.
    public var description: String {
        switch self {
        case .unavailable(let reason): "openssl unavailable: \(reason)"
        case .failed(let arguments, let status, let stderr): "openssl \(arguments) failed (exit \(status)): \(stderr)"
        case .fileSystem(let reason): "openssl certificates: \(reason)"
        }
    }
}

/// The files of one generation, by name inside its directory.
private struct CertificateFiles {
    let directory: URL

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func read(_ name: String) throws(TestCertificatesError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path(name)) else { throw .fileSystem("cannot read \(path(name))") }
        return [UInt8](data)
    }

    func write(_ name: String, _ text: String) throws(TestCertificatesError) {
        guard FileManager.default.createFile(atPath: path(name), contents: Data(text.utf8)) else {
            throw .fileSystem("cannot write \(path(name))")
        }
    }
}
