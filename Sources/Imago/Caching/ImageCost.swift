/// What an image costs a memory cache: its decoded size, `bytesPerRow * height`.
///
/// Never the encoded size (MEM-1): a 200 KB JPEG can decode to 48 MB of pixels, and it is the
/// pixels that the cache keeps alive.
public enum ImageCost {
    /// `pixels.byteCount` (`bytesPerRow * height`).
    public static func of(_ pixels: PixelBuffer) -> Int {
        pixels.byteCount
    }
}

extension MemoryCache where Value == PixelBuffer {
    /// Inserts decoded pixels at their decoded size (`ImageCost.of`).
    @discardableResult
    public func insert(_ pixels: PixelBuffer, forKey key: Key) -> Bool {
        insert(pixels, forKey: key, cost: ImageCost.of(pixels))
    }
}
