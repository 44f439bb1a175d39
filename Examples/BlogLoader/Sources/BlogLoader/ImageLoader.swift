import Foundation
import Imago

/// What to show: a URL and an optional longest side in pixels.
public struct ImageRequest: Hashable, Sendable {
    public var url: URL
    /// Longest side of the decoded image (default nil: full size).
    public var maxPixelSize: Int?

    public init(url: URL, maxPixelSize: Int? = nil) {
        self.url = url
        self.maxPixelSize = maxPixelSize
    }

    /// The memory cache's key: the same bytes decoded at another size are other pixels.
    public var key: String { url.absoluteString + (maxPixelSize.map { "@\($0)" } ?? "") }
}

/// Decoded pixels (Linux has no UIImage: Imago's decoder does the decoding).
public struct LoadedImage: Sendable {
    public let pixels: PixelBuffer
    /// Bytes of pixels: what the memory cache counts.
    public var cost: Int { pixels.width * pixels.height * 4 }
}

public enum ImageOrigin: Sendable { case memory, disk, network }

public enum LoadError: Error, Sendable, Equatable {
    case missingSource
    case httpStatus(Int)
    case emptyBody
    case undecodable(String)
    case network(String)
    case cancelled
}

/// Memory cache, then disk cache, then the network; every model of an app shares one loader.
@MainActor
public final class ImageLoader {
    public let memory: MemoryImageCache
    public let disk: DiskImageCache
    private let fetcher = ImageFetcher()
    /// Decodes performed so far.
    public private(set) var decodeCount = 0

    public init(memory: MemoryImageCache = MemoryImageCache(), disk: DiskImageCache) {
        self.memory = memory
        self.disk = disk
    }

    /// The memory cache's image, without waiting.
    public func cachedImage(for request: ImageRequest) -> LoadedImage? { memory.image(forKey: request.key) }

    public func load(_ request: ImageRequest) async throws(LoadError) -> (image: LoadedImage, origin: ImageOrigin) {
        if let stored = disk.data(for: request.url) {
            if let image = try? await decode(stored, request) {
                memory.insert(image, forKey: request.key)
                return (image, .disk)
            }
            disk.removeData(for: request.url)   // a corrupt entry is a miss
        }
        let data: Data
        do {
            data = try await fetcher.fetch(request.url)
        } catch {
            switch error {
            case .httpStatus(let status): throw .httpStatus(status)
            case .network(let message): throw .network(message)
            case .cancelled: throw .cancelled
            }
        }
        let image = try await decode(data, request)
        // Stored only once it decoded: an error page or a truncated body never reaches a cache.
        disk.store(data, for: request.url)
        memory.insert(image, forKey: request.key)
        return (image, .network)
    }

    private func decode(_ data: Data, _ request: ImageRequest) async throws(LoadError) -> LoadedImage {
        guard !data.isEmpty else { throw .emptyBody }
        decodeCount += 1
        do {
            let decoded = try await ImageDecoder.decode(data, options: DecodeOptions(maxPixelSize: request.maxPixelSize))
            return LoadedImage(pixels: decoded.pixels)
        } catch {
            throw error == .cancelled ? .cancelled : .undecodable(error.kind)
        }
    }
}
