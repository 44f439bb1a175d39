import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Turns a `FetchRequest` into the GET AsyncHTTPClient sends, refusing what must never reach
/// the network. The pipeline filters URLs already, but a transport must be safe on its own:
/// AsyncHTTPClient would happily open `http+unix` sockets, and its errors for a bad URL are
/// not the `FetchError`s the caller classifies retries by.
enum RequestBuilder {
    /// The request for `fetch`, or `.unsupportedScheme` / `.invalidURL` without any I/O.
    static func make(_ fetch: FetchRequest) throws(FetchError) -> HTTPClientRequest {
        let url = fetch.url
        guard let scheme = url.scheme?.lowercased() else { throw .invalidURL("\(url.absoluteString): no scheme") }
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard let host = url.host, !host.isEmpty else { throw .invalidURL("\(url.absoluteString): no host") }
        if let port = url.port, !(1...65_535).contains(port) {
            throw .invalidURL("\(url.absoluteString): port \(port) out of range")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        for (name, value) in fetch.headers.sorted(by: { $0.key < $1.key }) {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        // Ask for the bytes as stored: images are compressed already, and an encoded body
        // makes the Content-Length say nothing about the size of what is kept. A caller that
        // asks for an encoding itself gets it (ContentDecoder undoes gzip and deflate).
        if !request.headers.contains(name: "Accept-Encoding") {
            request.headers.add(name: "Accept-Encoding", value: "identity")
        }
        return request
    }
}
