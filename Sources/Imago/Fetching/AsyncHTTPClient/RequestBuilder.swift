import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Turns a `FetchRequest` into the GET AsyncHTTPClient sends.
enum RequestBuilder {
    /// The request for `fetch`, or `.unsupportedScheme` / `.invalidURL` without any I/O.
    static func make(_ fetch: FetchRequest) throws(FetchError) -> HTTPClientRequest {
        try fetch.checkURL()
        let url = fetch.url
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
