import Foundation

/// An in-memory resource served at one path, with its own faults.
///
/// Why in memory: most pipeline tests want a few exact bytes at a URL and to change them
/// (or how they are served) between requests, without touching the file system. Install
/// with ``TestServer/setRoute(_:_:)``; a route shadows a file of the same path under the
/// server's root.
public struct Route: Sendable {
    /// The bytes served (all of them for GET, a slice for a range request).
    public var body: [UInt8]

    /// The Content-Type sent. Default `application/octet-stream`.
    public var contentType: String

    /// The Last-Modified sent and compared with If-Modified-Since. Default `nil`: the time
    /// the route was installed, to the second.
    public var lastModified: Date?

    /// Faults for requests beyond ``initialFaults``. Default `nil`: the server's default
    /// faults (``TestServer/Configuration/defaultFaults``) apply; a value replaces them wholly.
    public var faults: Faults?

    /// Faults for the first requests, in order: request *i* (counted from 0 since the route
    /// was installed, GET and HEAD alike) uses `initialFaults[i]` while `i` is in range, and
    /// ``faults`` after. Default empty. Set it with ``failFirst(_:with:)`` for retry tests.
    public var initialFaults: [Faults]

    /// A route serving `body`; every other knob has the default its doc comment states.
    public init(
        body: [UInt8],
        contentType: String = "application/octet-stream",
        lastModified: Date? = nil,
        faults: Faults? = nil,
        initialFaults: [Faults] = []
    ) {
        self.body = body
        self.contentType = contentType
        self.lastModified = lastModified
        self.faults = faults
        self.initialFaults = initialFaults
    }

    /// The strong entity tag the server sends for this body and compares conditional requests
    /// with (`"<16 hex digits>"`), e.g. to send it weak through ``Faults/headers``: `W/` + it.
    public var entityTag: String { EntityTag.forBody(body) }

    /// This route, but its first `count` requests (after any initial faults already set)
    /// get `faults`, e.g. `route.failFirst(2, with: Faults(status: 503))` answers 503 twice
    /// and then normally.
    public func failFirst(_ count: Int, with faults: Faults) -> Route {
        var route = self
        route.initialFaults += Array(repeating: faults, count: max(0, count))
        return route
    }
}
