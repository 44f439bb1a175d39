extension NginxServer {
    /// Connections nginx had accepted on all its listeners before this status request's own,
    /// from the `stub_status` page at `statusPath` (a location with
    /// ``NginxDirective/stubStatus``). Every connection counts, whether a request followed or
    /// not: a TLS handshake the client broke off is one, and shows in no access log. Two
    /// readings `a` then `b` mean `b - a - 1` connections came in between (the `- 1` is the
    /// first reading's own).
    public func connectionsAccepted(statusPath: String) throws(NginxError) -> Int {
        guard let page = LoopbackPorts.get(port: port, path: statusPath) else {
            throw .statusUnreadable("cannot fetch \(statusPath) from nginx on port \(port)")
        }
        // "server accepts handled requests\n 5 5 7": the first number after the labels.
        let words = page.split(whereSeparator: \.isWhitespace)
        guard page.hasPrefix("HTTP/1.1 200"), let label = words.firstIndex(of: "requests"), label + 1 < words.count,
              let accepted = Int(words[label + 1]), accepted >= 1 else {
            throw .statusUnreadable("\(statusPath) is not a stub_status page: \(page.prefix(300))")
        }
        return accepted - 1
    }
}
