import Foundation
import Synchronization

/// The HTTPS listener of an ``NginxServer``: a certificate and key, served with nginx's `ssl`
/// and `http2` directives on a port of its own beside the plain HTTP one.
public struct NginxTLS: Sendable, Hashable {
    /// The server's certificate chain and its private key (PEM), written into the server's own
    /// directory (removed when it stops).
    public var pair: TestCertificates.Pair
    /// Offer HTTP/2 (ALPN `h2`) beside HTTP/1.1. Default true: a client pinned to HTTP/1.1 still
    /// gets it, as from a CDN.
    public var http2: Bool

    /// An HTTPS listener serving `pair`; `http2` defaults to true.
    public init(_ pair: TestCertificates.Pair, http2: Bool = true) {
        self.pair = pair
        self.http2 = http2
    }
}

/// How the installed nginx turns HTTP/2 on: `http2 on;` from 1.25.1, before that the `http2`
/// parameter of `listen` (Debian 12 has 1.22, where `http2 on;` is an unknown directive).
enum NginxHTTP2Syntax: Sendable, Equatable {
    case listenParameter
    case directive

    /// The version `nginx -v` prints (`nginx version: nginx/1.22.1`), cached per binary.
    static func of(executable: String) throws(NginxError) -> NginxHTTP2Syntax {
        if let known = cache.withLock({ $0[executable] }) { return known }
        let outcome: ShortCommand.Outcome
        switch ShortCommand.run(executable, ["-v"]) {
        case .failure(let failure): throw .unavailable(reason: failure.reason)
        case .success(let success): outcome = success
        }
        guard outcome.status == 0, let version = parse(outcome.stderr) else {
            throw .invalidConfiguration("cannot read the version of \(executable) from `nginx -v`: \(outcome.stderr)")
        }
        let syntax: NginxHTTP2Syntax = version.lexicographicallyPrecedes([1, 25, 1]) ? .listenParameter : .directive
        cache.withLock { $0[executable] = syntax }
        return syntax
    }

    /// `[1, 22, 1]` from `nginx version: nginx/1.22.1` (a build suffix after a space is ignored).
    static func parse(_ text: String) -> [Int]? {
        guard let slash = text.range(of: "nginx/") else { return nil }
        let digits = text[slash.upperBound...].prefix { $0.isNumber || $0 == "." }
        let parts = digits.split(separator: ".").compactMap { Int($0) }
        return parts.count >= 2 ? parts : nil
    }

    private static let cache = Mutex<[String: NginxHTTP2Syntax]>([:])
}
