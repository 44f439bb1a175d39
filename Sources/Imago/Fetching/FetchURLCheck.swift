import Foundation

extension FetchRequest {
    /// Refuses a URL no transport should request: `.unsupportedScheme` for anything but http
    /// and https (scheme compared case-insensitively), `.invalidURL` for one without a host or
    /// with an impossible port. Both transports call it first, so each is safe on its own, and
    /// the pipeline judges `.url` sources with it before any request (`URLSourceKind`):
    /// URLSession waits out the whole timeout on a URL without a host, and AsyncHTTPClient
    /// would open `http+unix` sockets.
    static func check(_ url: URL) throws(FetchError) {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            throw .invalidURL("no scheme in \(url.absoluteString)")
        }
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard let host = url.host, !host.isEmpty else { throw .invalidURL("no host in \(url.absoluteString)") }
        if let port = url.port, !(1...65_535).contains(port) {
            throw .invalidURL("port \(port) out of range in \(url.absoluteString)")
        }
    }

    func checkURL() throws(FetchError) { try Self.check(url) }
}
