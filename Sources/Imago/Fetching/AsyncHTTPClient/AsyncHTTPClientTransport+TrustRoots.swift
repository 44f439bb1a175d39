import Foundation
import NIOSSL

extension AsyncHTTPClientTransport {
    /// The certificate authorities an `AsyncHTTPClientTransport` trusts for https
    /// (``Configuration/trustRoots``).
    public enum TrustRoots: Sendable, Hashable {
        /// The system's trust store: on Linux the distribution's CA bundle, as AsyncHTTPClient
        /// finds it. The default.
        case system
        /// Only these CA certificates, as `curl --cacert` trusts a file: a private CA (a
        /// staging CDN, a test server). A server whose chain leads to any other CA fails with
        /// `FetchError.tls`.
        case only([NIOSSLCertificate])
        /// The system's trust store and these CA certificates as well.
        case systemAnd([NIOSSLCertificate])

        /// The certificates in a PEM file (one or more `-----BEGIN CERTIFICATE-----` blocks),
        /// read now, so a bad file fails here, before any fetch, with a ``TrustRootsError``.
        public static func certificates(inPEMFile path: String) throws(TrustRootsError) -> [NIOSSLCertificate] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .unreadable(path: path, reason: "no such file")
            }
            guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "is a directory") }
            guard FileManager.default.isReadableFile(atPath: path), let bytes = FileManager.default.contents(atPath: path) else {
                throw .unreadable(path: path, reason: "permission denied")
            }
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMBytes([UInt8](bytes))
            } catch {
                throw .notCertificates(path: path, reason: "no PEM certificate could be read (\(error))")
            }
            guard !certificates.isEmpty else {
                throw .notCertificates(path: path, reason: "no -----BEGIN CERTIFICATE----- block")
            }
            return certificates
        }

        /// `configuration` (or AsyncHTTPClient's client default) with these roots in place of
        /// its own; `.system` leaves it as it is.
        func applied(to configuration: TLSConfiguration?) -> TLSConfiguration? {
            switch self {
            case .system:
                return configuration
            case .only(let certificates):
                var tls = configuration ?? .makeClientConfiguration()
                tls.trustRoots = .certificates(certificates)
                tls.additionalTrustRoots = []
                return tls
            case .systemAnd(let certificates):
                var tls = configuration ?? .makeClientConfiguration()
                tls.additionalTrustRoots.append(.certificates(certificates))
                return tls
            }
        }
    }
}

/// Why a CA file for ``AsyncHTTPClientTransport/TrustRoots`` could not be used.
public enum TrustRootsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is missing, a directory, or not readable (the path, and why).
    case unreadable(path: String, reason: String)
    /// The file was read but holds no usable PEM certificate (the path, and why).
    case notCertificates(path: String, reason: String)

    /// `PATH: reason`, one line.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason), .notCertificates(let path, let reason): "\(path): \(reason)"
        }
    }
}
