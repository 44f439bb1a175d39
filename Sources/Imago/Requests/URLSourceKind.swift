import Foundation

/// What a `.url` source's URL asks for, judged before any request: schemes are compared
/// case-insensitively (RFC 3986 §3.1), so `HTTP://` is fetched like `http://`; a `file:` URL is
/// read as a local file; anything else fails at once with a typed error instead of reaching the
/// transport (and its retries).
enum URLSourceKind: Equatable {
    /// To fetch, at this URL with its scheme in lowercase (transports need not know RFC 3986's
    /// case rule: corelibs URLSession refuses `HTTP://`).
    case remote(URL)
    case localFile
    case unfetchable(FetchError)

    init(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            self = .unfetchable(.invalidURL("no scheme in \(url.absoluteString)"))
            return
        }
        switch scheme {
        case "http", "https":
            if let host = url.host, !host.isEmpty {
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
                components?.scheme = scheme
                self = .remote(components?.url ?? url)
            } else {
                self = .unfetchable(.invalidURL("no host in \(url.absoluteString)"))
            }
        case "file": self = .localFile
        default: self = .unfetchable(.unsupportedScheme(scheme))
        }
    }
}
