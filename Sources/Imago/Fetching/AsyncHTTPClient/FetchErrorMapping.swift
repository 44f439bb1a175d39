import Foundation
import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL

/// Translates what AsyncHTTPClient, NIO and BoringSSL throw into `FetchError`, the vocabulary
/// the pipeline's retry policy judges: TLS and redirect failures are final, connection trouble
/// is transient, a body cut short is a truncation.
enum FetchErrorMapping {
    /// An error before the final response head: connecting, TLS, redirects. `url` is the
    /// request's, named in a TLS failure (`HOST:PORT`; after a redirect to another origin, the
    /// failing one may be that origin instead).
    static func beforeHead(_ error: any Error, redirectLimit: Int, url: URL? = nil) -> FetchError {
        if let fetchError = error as? FetchError { return fetchError }
        if error is CancellationError { return .cancelled }
        if let tls = TLSFailureReason.describe(error, origin: url.map(TLSFailureReason.origin)) { return .tls(tls) }
        if let client = error as? HTTPClientError {
            // A struct of static values, not an enum: compared, not switched over.
            if client == .redirectLimitReached || client == .redirectCycleDetected {
                return .tooManyRedirects(limit: redirectLimit)
            }
            if client == .cancelled { return cancelled() }
            if client == .tlsHandshakeTimeout {
                return .tls("the TLS handshake timed out" + (url.map { " for \(TLSFailureReason.origin($0))" } ?? ""))
            }
            if client == .invalidURL || client == .emptyHost || client == .emptyScheme {
                return .invalidURL(client.description)
            }
            return .transport(client.description)
        }
        return .transport(describe(error, origin: url.map(TLSFailureReason.origin)))
    }

    /// An error while the body streamed: a Content-Length not reached is a truncation whatever
    /// the socket said (counted in wire bytes, rule HTTP-3); otherwise the connection broke.
    static func midBody(_ error: any Error, expected: Int?, received: Int) -> FetchError {
        if let fetchError = error as? FetchError { return fetchError }
        if error is CancellationError { return .cancelled }
        if let client = error as? HTTPClientError, client == .cancelled { return cancelled() }
        if let expected, received < expected { return .truncated(expected: expected, received: received) }
        return .transport(describe(error))
    }

    /// AsyncHTTPClient reports `.cancelled` both for a cancelled caller and for requests it
    /// ended itself on `shutdown()`: only the first is a cancellation to the pipeline.
    private static func cancelled() -> FetchError {
        Task.isCancelled ? .cancelled : .transport("the HTTP client ended the request (it was shut down)")
    }

    /// The underlying errors of a failed connect (one per address tried), a system error as
    /// the system words it with the server it concerned (`Connection refused (127.0.0.1:9)`:
    /// NIO's own description, `connection reset (error set): Connection refused (errno: 111)`,
    /// names a reset that did not happen), or the error itself.
    static func describe(_ error: any Error, origin: String? = nil) -> String {
        if let connect = error as? NIOConnectionError {
            let attempts = connect.connectionErrors.map { "\($0.target): \(describe($0.error))" }
            return "cannot connect to \(connect.host):\(connect.port)"
                + (attempts.isEmpty ? "" : " (\(attempts.joined(separator: "; ")))")
        }
        if let system = error as? IOError {
            let reason = String(cString: strerror(system.errnoCode))
            return origin.map { "\(reason) (\($0))" } ?? reason
        }
        return "\(error)"
    }
}
