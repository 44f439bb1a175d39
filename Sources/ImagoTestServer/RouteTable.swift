import Foundation
import Synchronization

/// One in-memory route as chosen for one request, with the faults that request gets.
struct RouteHit: Sendable {
    var body: [UInt8]
    var contentType: String
    var entityTag: String
    var lastModifiedSeconds: Int64
    /// `nil`: the server's default faults.
    var faults: Faults?
}

/// The in-memory routes, replaceable from any thread while requests are being served.
///
/// Why a lock and a per-route request count: `failFirst` must give exactly the first K
/// requests the fault even when requests race on several connections, and a route
/// replaced by a test must start counting afresh.
final class RouteTable: Sendable {
    private struct Entry: Sendable {
        var route: Route
        var entityTag: String
        var lastModifiedSeconds: Int64
        var served = 0
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Installs `route` at `path`, replacing any route there (and its request count).
    func set(_ path: String, _ route: Route) {
        // Hash outside the lock: a large body must not stall requests for other paths.
        let tag = EntityTag.forBody(route.body)
        let modified = route.lastModified ?? Date()
        let entry = Entry(route: route, entityTag: tag, lastModifiedSeconds: Int64(modified.timeIntervalSince1970.rounded(.down)))
        entries.withLock { $0[path] = entry }
    }

    /// Removes the route at `path`; returns whether there was one.
    @discardableResult
    func remove(_ path: String) -> Bool {
        entries.withLock { $0.removeValue(forKey: path) != nil }
    }

    /// Removes every route.
    func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    /// The route at `path` for one more request (counted for ``Route/initialFaults``), or
    /// `nil` if there is none.
    func take(_ path: String) -> RouteHit? {
        entries.withLock { entries -> RouteHit? in
            guard var entry = entries[path] else { return nil }
            let index = entry.served
            entry.served += 1
            entries[path] = entry
            let route = entry.route
            let faults = index < route.initialFaults.count ? route.initialFaults[index] : route.faults
            return RouteHit(
                body: route.body, contentType: route.contentType, entityTag: entry.entityTag,
                lastModifiedSeconds: entry.lastModifiedSeconds, faults: faults)
        }
    }
}
