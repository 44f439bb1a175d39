import Foundation
import ImagoTestServer

/// What the server answers in one MODEL-HTTP case, made from the case's header operations: the
/// route's faults (extra and omitted header fields) before and after a `refresh`, and the header
/// fields the reference must be told the server sent, as the server writes them.
struct HTTPCaseResponse {
    /// When the case started, in whole seconds since 1970: the `now` of the operations' offsets.
    let start: Int64
    /// The route's `Last-Modified` (the server compares `If-Modified-Since` with it).
    let lastModified: Int64
    /// The route, with its faults before any refresh.
    let route: Route
    /// The faults after a `refresh`.
    let refreshed: Faults

    init(_ operations: [HTTPCaseOperation], image: [UInt8], start: Int64) {
        self.start = start
        var directives: [String] = []
        var headers: [String: String] = [:]
        var omitted: Set<String> = []
        var date: Int64? = start
        var modified = start
        var expires: (HTTPDateFormat, Int64)?
        var entityTag: String?
        let serverTag = Route(body: image).entityTag
        for operation in operations {
            switch operation {
            case .cacheControl(let directive): directives.append(directive)
            case .expires(let form, let offset): expires = (form, offset); headers["Expires"] = nil
            case .invalidExpires(let value): expires = nil; headers["Expires"] = value
            case .date(let offset): date = start + offset
            case .omitDate: date = nil
            case .age(let seconds): headers["Age"] = "\(seconds)"
            case .lastModified(let offset): modified = start + offset
            case .omit(let field): omitted.insert(field)
            case .weakEntityTag: entityTag = "W/" + serverTag
            case .foreignEntityTag: entityTag = "\"\(HTTPCaseOperation.foreignTag)\""
            case .vary(let value): headers["Vary"] = value
            case .use, .refresh: break
            }
        }
        if !directives.isEmpty { headers["Cache-Control"] = directives.joined(separator: ", ") }
        if let date { headers["Date"] = HTTPDateFormat.imfFixdate.format(date) } else { omitted.insert("Date") }
        // Expires is relative to the Date sent (to the start without one), whichever comes last.
        if let expires { headers["Expires"] = expires.0.format((date ?? start) + expires.1) }
        if let entityTag { headers["ETag"] = entityTag }
        lastModified = modified
        let validators = omitted.intersection(["ETag", "Last-Modified"])
        if validators.contains("ETag") { headers["ETag"] = nil }
        route = Route(body: image, contentType: "image/png",
                      lastModified: Date(timeIntervalSince1970: TimeInterval(modified)),
                      faults: Faults(headers: headers, omittedHeaders: omitted))
        var refreshHeaders = ["Cache-Control": "max-age=86400", "Age": "0"]
        refreshHeaders["ETag"] = headers["ETag"]
        refreshed = Faults(headers: refreshHeaders, omittedHeaders: validators)
    }

    /// The header fields a response with `faults` carries when the server dates it `serverNow`
    /// (its own `Date`, unless the faults replace or omit it): what the reference receives.
    func fields(_ faults: Faults, serverNow: Int64) -> [StoredHTTPResponse.Field] {
        var fields: [String: String] = [
            "Date": HTTPDateFormat.imfFixdate.format(serverNow),
            "ETag": route.entityTag,
            "Last-Modified": HTTPDateFormat.imfFixdate.format(lastModified),
        ]
        fields.merge(faults.headers) { _, route in route }
        for name in faults.omittedHeaders { fields[name] = nil }
        return fields.sorted { $0.key < $1.key }.map { StoredHTTPResponse.Field($0.key, $0.value) }
    }
}
