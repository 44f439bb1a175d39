import Foundation
@testable import Imago

/// One transport the nginx integration tests run against, and what it cannot do.
struct NginxTransportCase: Sendable {
    /// A behaviour some transports lack; a test that needs it skips that transport, printing
    /// the reason, and runs in full for every other.
    enum Limitation: Hashable, Sendable {
        /// Cannot request a URL whose host is an IPv6 literal (`http://[::1]:PORT/...`).
        case ipv6LiteralHosts
        /// Does not undo a Content-Encoding that the server applies whatever the request
        /// accepted (nginx's `gzip_static always`).
        case contentDecoding
        /// Follows a redirect loop to its limit without crashing the process (only listed under
        /// ThreadSanitizer, see `underThreadSanitizer`).
        case redirectLoops
    }

    let name: String
    /// A fresh transport; each transport × strategy combination gets its own.
    let make: @Sendable () -> any ImageTransport
    /// What this transport cannot do, with the reason a skip prints. Default none.
    var limitations: [Limitation: String] = [:]
}

enum NginxTransports {
    /// Every transport the nginx tests run, each with every fetch strategy. Adding one here
    /// runs every nginx test against it.
    static let all: [NginxTransportCase] = [
        // The shared client, as the pipeline's default uses it (no shutdown to forget).
        NginxTransportCase(name: "AsyncHTTPClient", make: { AsyncHTTPClientTransport.shared }),
        NginxTransportCase(name: "URLSession", make: { URLSessionTransport() }, limitations: [
            .ipv6LiteralHosts: "swift-corelibs-foundation's URLSession refuses http://[::1]:PORT/ URLs with "
                + "NSURLErrorDomain -1000 (bad URL) before sending a request",
        ].merging(underThreadSanitizer ? [
            .redirectLoops: "under ThreadSanitizer, swift-corelibs-foundation's URLSession can trap in "
                + "HTTPURLProtocol (\"Received callback for HTTP redirection, but we're not waiting for it\") "
                + "on a redirect loop, killing the test process; the plain `make test` runs this case",
        ] : [:]) { first, _ in first }),
    ]

    /// `make test-tsan` says so (`IMAGO_SANITIZER=thread`): Swift has no compile-time sign of it.
    static let underThreadSanitizer = ProcessInfo.processInfo.environment["IMAGO_SANITIZER"] == "thread"
}
