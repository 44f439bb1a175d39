import Foundation

/// What a `.url` source's URL asks for, judged before any request: schemes are compared
/// case-insensitively (RFC 3986 §3.1), so `HTTP://` is fetched like `http://`; a `file:` URL is
/// read as a local file; anything the transports would refuse (`FetchRequest.check`) fails at
/// once with its typed error instead of reaching the transport (and its retries).
enum URLSourceKind: Equatable {
    /// To fetch, at this URL with its scheme in lowercase (transports need not know RFC 3986's
    /// case rule: corelibs URLSession refuses `HTTP://`).
    case remote(URL)
    case localFile
    case unfetchable(FetchError)

    init(_ url: URL) {
        if url.scheme?.lowercased() == "file" {
            self = .localFile
            return
        }
        do throws(FetchError) {
            try FetchRequest.check(url)
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.scheme = url.scheme?.lowercased()
            self = .remote(components?.url ?? url)
        } catch {
            self = .unfetchable(error)
        }
    }
}
