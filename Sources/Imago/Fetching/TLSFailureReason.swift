import Foundation
import NIOSSL

/// The readable reason of a TLS failure (either transport): what went wrong with the
/// server's certificate, for which `HOST:PORT`, and BoringSSL's own code for a search.
///
/// What can be told apart: a certificate for another host name (NIOSSL checks the name itself,
/// after the chain verified, and throws its own error), and a chain that did not verify. The
/// latter is one BoringSSL code, CERTIFICATE_VERIFY_FAILED, whether the CA is unknown or the
/// certificate expired or is not yet valid: the verifier's detailed result is not surfaced
/// through AsyncHTTPClient, so the message names all three rather than guess.
enum TLSFailureReason {
    /// `host:port` of `url` (the scheme's default port when it names none).
    static func origin(_ url: URL) -> String {
        let host = url.host ?? "?"
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The reason when `error` is a handshake or certificate failure, else nil.
    static func describe(_ error: any Error, origin: String?) -> String? {
        let suffix = origin.map { " for \($0)" } ?? ""
        switch error {
        case let ssl as NIOSSLError:
            if case .handshakeFailed(let boring) = ssl { return handshake(boring, suffix) }
            return "\(ssl)\(suffix)"
        case let boring as BoringSSLError:
            return handshake(boring, suffix)
        case let extra as NIOSSLExtraError where extra == .failedToValidateHostname:
            return "certificate not valid for this host name (wrong host name)\(suffix)"
        case let extra as NIOSSLExtraError:
            return "\(extra)\(suffix)"
        case is NIOSSLCloseTimedOutError:
            return "the TLS connection did not close in time\(suffix)"
        default:
            return nil
        }
    }

    /// The reason for a URLSession failure that is a TLS one, else nil. By code where
    /// FoundationNetworking gives one (its own words are generic); but a certificate libcurl
    /// refused arrives as `NSURLErrorUnknown` (-1) with libcurl's message (CURLE_PEER_FAILED_
    /// VERIFICATION has no URLError code in corelibs), which would pass for a transient
    /// transport error and be retried: libcurl's messages are fixed English text, so they are
    /// recognised by it.
    static func describe(_ error: URLError, origin: String) -> String? {
        let message = error.localizedDescription
        let what: String
        switch error.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            what = "certificate not trusted (unknown CA)"
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            what = "certificate expired or not yet valid"
        case .clientCertificateRejected, .clientCertificateRequired:
            what = "the server wants a client certificate"
        case .secureConnectionFailed:
            what = "handshake failed"
        default:
            guard let curl = curlCertificateProblem(message) else { return nil }
            what = curl
        }
        return "\(what) for \(origin): \(message)"
    }

    /// What libcurl's message says went wrong with the certificate, or nil when it is not one
    /// of its certificate messages.
    private static func curlCertificateProblem(_ message: String) -> String? {
        if message.contains("subject name") && message.contains("target host name") {
            return "certificate not valid for this host name (wrong host name)"   // "no alternative certificate subject name matches…"
        }
        guard message.hasPrefix("SSL certificate problem:") else { return nil }
        if message.contains("expired") || message.contains("not yet valid") { return "certificate expired or not yet valid" }
        return "certificate not trusted (unknown CA)"   // "unable to get local issuer certificate", "self-signed…"
    }

    private static func handshake(_ boring: BoringSSLError, _ suffix: String) -> String {
        if "\(boring)".contains("CERTIFICATE_VERIFY_FAILED") {
            return "certificate not trusted (unknown CA, expired or not yet valid: CERTIFICATE_VERIFY_FAILED)\(suffix)"
        }
        return "handshake failed\(suffix): \(boring)"
    }
}
