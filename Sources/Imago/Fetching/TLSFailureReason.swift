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

    /// The reason for URLSession's TLS codes: its own words are generic ("An SSL error has
    /// occurred…"), the code says which.
    static func describe(_ error: URLError, origin: String) -> String {
        let what: String = switch error.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            "certificate not trusted (unknown CA, or not valid for this host name)"
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            "certificate expired or not yet valid"
        case .clientCertificateRejected, .clientCertificateRequired:
            "the server wants a client certificate"
        default:
            "handshake failed"
        }
        return "\(what) for \(origin): \(error.localizedDescription) (URLError \(error.code.rawValue))"
    }

    private static func handshake(_ boring: BoringSSLError, _ suffix: String) -> String {
        if "\(boring)".contains("CERTIFICATE_VERIFY_FAILED") {
            return "certificate not trusted (unknown CA, expired or not yet valid: CERTIFICATE_VERIFY_FAILED)\(suffix)"
        }
        return "handshake failed\(suffix): \(boring)"
    }
}
