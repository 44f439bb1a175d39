import AsyncHTTPClient
import Foundation
import Imago
import NIOCore

/// The raw control for the pipeline's throughput: the same fetch and decode a user would write
/// by hand, with no cache, no coalescing and no loading model. One shared AsyncHTTPClient
/// `HTTPClient` fetches each image's bytes into memory, then `ImageDecoder` decodes them to
/// RGBA at full size with the default `DecodeOptions` (what the pipeline decodes with when a
/// request asks for no resize), `concurrency` loads at a time in a task group.
///
/// It uses `HTTPClient` directly rather than Imago's `AsyncHTTPClientTransport` so that the
/// pipeline's overhead over it includes the transport adapter as well: the question is what
/// the loader costs over the few lines an app would otherwise write.
public struct RawControl: Sendable {
    /// The client every load goes through (default `HTTPClient.shared`, as a user would write).
    public let client: HTTPClient
    /// The largest response body kept in memory: 64 MiB (a 12 MP JPEG is a few MiB).
    public let maxBodySize: Int

    public init(client: HTTPClient = .shared, maxBodySize: Int = 64 << 20) {
        self.client = client
        self.maxBodySize = maxBodySize
    }

    /// A load the control could not finish.
    public enum Failure: Error, CustomStringConvertible {
        /// The server answered with a status other than 200.
        case status(Int, url: URL)

        public var description: String {
            switch self {
            case .status(let code, let url): "raw control: \(url.absoluteString) answered HTTP \(code)"
            }
        }
    }

    /// Loads every URL, `concurrency` at a time, and returns each decoded image's size
    /// (width, height) in the order of `urls`; with `disk`, each body is also written to a file
    /// before it is decoded (`RawDiskWrite`).
    public func load(_ urls: [URL], concurrency: Int, writingTo disk: RawDiskWrite? = nil) async throws
        -> [(width: Int, height: Int)] {
        var sizes = [(width: Int, height: Int)](repeating: (0, 0), count: urls.count)
        try await withThrowingTaskGroup(of: (Int, DecodedImage).self) { group in
            var next = 0
            func startNext() {
                let index = next, url = urls[index]
                group.addTask { (index, try await load(url, writingTo: disk)) }
                next += 1
            }
            while next < min(max(1, concurrency), urls.count) { startNext() }
            while let finished = try await group.next() {
                let (index, image) = finished
                sizes[index] = (image.metadata.width, image.metadata.height)
                if next < urls.count { startNext() }
            }
        }
        return sizes
    }

    /// Readies the client and its event loops with one tiny request to `url` (the first byte, by
    /// Range), so a measurement that starts after it does not charge their set-up to the loads.
    public func warmUp(_ url: URL) async throws {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Range", value: "bytes=0-0")
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: maxBodySize)
    }

    /// Fetches one image's bytes into memory and decodes them: the time to pixels of one load.
    /// With `disk`, the bytes are written to a file first, as a hand-written disk cache would.
    public func load(_ url: URL, writingTo disk: RawDiskWrite? = nil) async throws -> DecodedImage {
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
        guard response.status == .ok else { throw Failure.status(Int(response.status.code), url: url) }
        let body = try await response.body.collect(upTo: maxBodySize)
        try await disk?.write(body, for: url)
        return try body.withUnsafeReadableBytes { bytes in try ImageDecoder.decode(bytes) }
    }
}
