/// What makes a shipped image from its description: ImagoCorpus's ConformanceImageRenderer (the
/// real encoders), which the generator command and the drift test plug in. ImagoConformance
/// declares only the shape, so it links no encoder.
package protocol ShippedImageRendering {
    associatedtype Rendered: ShippedImageRendered
    func photoPNG(seed: UInt64, width: Int, height: Int) throws -> Rendered
    func compressiblePNG(seed: UInt8, width: Int, height: Int) throws -> Rendered
    func jpeg(seed: UInt64, width: Int, height: Int, progressive: Bool) throws -> Rendered
    func storedPNG(seed: UInt64, width: Int, height: Int, interlaced: Bool) throws -> Rendered
    func largePNG(width: Int, height: Int) throws -> Rendered
}

/// An encoded file and the RGBA pixels it holds when its decode is exact (nil for a JPEG).
package protocol ShippedImageRendered {
    var bytes: [UInt8] { get }
    var rgba: [UInt8]? { get }
}

extension ShippedImage {
    package func render<Renderer: ShippedImageRendering>(with renderer: Renderer) throws -> Renderer.Rendered {
        switch self {
        case let .photo(seed, width, height): try renderer.photoPNG(seed: seed, width: width, height: height)
        case let .compressible(seed, width, height): try renderer.compressiblePNG(seed: seed, width: width, height: height)
        case let .jpeg(seed, width, height, progressive):
            try renderer.jpeg(seed: seed, width: width, height: height, progressive: progressive)
        case let .storedPNG(seed, width, height, interlaced):
            try renderer.storedPNG(seed: seed, width: width, height: height, interlaced: interlaced)
        case let .largePNG(width, height): try renderer.largePNG(width: width, height: height)
        }
    }

    /// The file as committed: the image's bytes, packed when `isPacked`.
    package func shippedFile(_ bytes: [UInt8]) -> [UInt8] { isPacked ? PackedBytes.pack(bytes) : bytes }

    /// The manifest's entry for this image rendered with `rgba` (nil: a JPEG, no digest).
    package func manifestEntry(_ rgba: [UInt8]?) -> ShippedImageStore.Entry {
        let (width, height) = size
        return ShippedImageStore.Entry(width: width, height: height,
                                       digest: rgba.map { ImageFingerprint(width: width, height: height, rgba: $0).digest })
    }

    var size: (width: Int, height: Int) {
        switch self {
        case let .photo(_, width, height), let .compressible(_, width, height), let .jpeg(_, width, height, _),
             let .storedPNG(_, width, height, _), let .largePNG(width, height): (width, height)
        }
    }
}
