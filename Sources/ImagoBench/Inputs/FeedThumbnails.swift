import Foundation
import ImagoCorpus

/// The feed scenario's product grid: distinct photo-like thumbnails of 10–60 KB, even indices
/// JPEG and odd ones lossy WebP, as an image CDN serves a grid. Each is rendered from its own
/// seed at its own size (so every one has its own bytes and cache key), and the set is cached
/// under the bench inputs directory (`feed-thumbnails-v1/000.jpg`, `001.webp`, …), outside git.
public enum FeedThumbnails {
    /// The byte range every thumbnail must fall in: 10–60 KB (10,000 to 60,000 bytes).
    public static let sizeRange = 10_000...60_000
    /// The cache folder inside the inputs directory; the version changes with the recipe.
    static let folderName = "feed-thumbnails-v1"

    /// One thumbnail on disk.
    public struct Thumbnail: Sendable, Hashable {
        /// The file name, e.g. `007.webp`: also its path under the server's `/feed/` location.
        public let name: String
        /// The encoded bytes.
        public let bytes: [UInt8]
    }

    /// The first `count` thumbnails (default 100), generated into `directory` when not cached
    /// yet (`log` says so once). Throws ``BenchError`` when an encoder fails or a thumbnail
    /// cannot be brought into ``sizeRange``.
    public static func prepare(count: Int = 100, directory: String, log: (String) -> Void) throws -> [Thumbnail] {
        let folder = URL(fileURLWithPath: directory).appendingPathComponent(folderName, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logged = false
        return try (0..<count).map { index in
            let name = fileName(index)
            let file = folder.appendingPathComponent(name)
            if let cached = FileManager.default.contents(atPath: file.path), sizeRange.contains(cached.count) {
                return Thumbnail(name: name, bytes: [UInt8](cached))
            }
            if !logged {
                log("generating \(count) feed thumbnails in \(folder.path)")
                logged = true
            }
            let bytes = try encode(index)
            try Data(bytes).write(to: file, options: .atomic)
            return Thumbnail(name: name, bytes: bytes)
        }
    }

    /// `007.webp`: three digits, JPEG for even indices and WebP for odd ones.
    static func fileName(_ index: Int) -> String {
        String(format: "%03d.", index) + (index.isMultiple(of: 2) ? "jpg" : "webp")
    }

    /// Thumbnail `index`: 240 to 400 pixels a side (grid cells differ a little in shape), encoded
    /// at quality 80, then re-encoded with the quality stepped down (too large) or the detail
    /// stepped up (too small) until it lands in ``sizeRange``.
    static func encode(_ index: Int) throws -> [UInt8] {
        let width = 240 + (index * 37) % 161, height = 240 + (index * 53) % 161
        var quality = 80, detail: Float = 1.3
        for _ in 0..<8 {
            let image = ProceduralImage(seed: 9_000 + UInt64(index), width: width, height: height,
                                        options: .init(detail: detail))
            let bytes = index.isMultiple(of: 2)
                ? try Encoders.jpeg(width: width, height: height, input: .rgb, pixels: image.samples8(channels: 3),
                                    stride: width * 3, quality: quality)
                : try Encoders.webp(width: width, height: height, rgba: image.samples8(channels: 4), stride: width * 4,
                                    lossless: false, quality: Float(quality), keepAlpha: false)
            if sizeRange.contains(bytes.count) { return bytes }
            if bytes.count > sizeRange.upperBound { quality -= 12 } else { quality = min(95, quality + 8); detail *= 1.5 }
        }
        throw BenchError("feed thumbnail \(index) (\(width)×\(height)) could not be encoded within \(sizeRange) bytes")
    }
}
