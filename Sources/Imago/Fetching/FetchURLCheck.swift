import Foundation

extension FetchRequest {
    /// Refuses a URL no transport should request: `.unsupportedScheme` for anything but http
    /// and https (scheme compared case-insensitively), `.invalidURL` for one without a host or
    /// with an impossible port. Both transports call it first, so each is safe on its own (the
    /// pipeline filters too): URLSession waits out the whole timeout on a URL without a host,
    /// and AsyncHTTPClient would open `http+unix` sockets.
    func checkURL() throws(FetchError) {
        guard let scheme = url.scheme?.lowercased() else { throw .invalidURL("\(url.absoluteString): no scheme") }
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard let host = url.host, !host.isEmpty else { throw .invalidURL("\(url.absoluteString): no host") }
        if let port = url.port, !(1...65_535).contains(port) {
            throw .invalidURL("\(url.absoluteString): port \(port) out of range")
        }
    }
}
