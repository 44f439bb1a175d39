import Foundation
import ImagoCorpus

/// An image the harness serves, with the fingerprint a correct decode must produce.
public struct ConformanceImage: Sendable {
    /// The encoded file (8-bit RGBA PNG, so decoded pixels are exactly the source's).
    public let bytes: [UInt8]
    public let fingerprint: ImageFingerprint
    /// width × height × 4: the cost a memory cache must charge (MEM-1).
    public var decodedByteCount: Int { fingerprint.width * fingerprint.height * 4 }

    /// A procedural photo-like image; distinct seeds give distinct pixels.
    public init(seed: UInt64, width: Int, height: Int) {
        let rgba = ProceduralImage(seed: seed, width: width, height: height).samples8(channels: 4)
        // Level 1 keeps files large enough for several progress reports.
        bytes = (try? Encoders.png(width: width, height: height, colorType: .rgba, bitDepth: 8, interlaced: false,
                                   samples: rgba, stride: width * 4, compressionLevel: 1)) ?? []
        precondition(!bytes.isEmpty, "the PNG encoder failed for a \(width)x\(height) conformance image")
        fingerprint = ImageFingerprint(width: width, height: height, rgba: rgba)
    }
}

/// The images checks serve: small and fast to decode, distinct from each other.
public struct ConformanceImages: Sendable {
    /// 64×48.
    public let small = ConformanceImage(seed: 1, width: 64, height: 48)
    /// 48×64: a different image of the same cost as `small`.
    public let other = ConformanceImage(seed: 2, width: 48, height: 64)
    /// 96×96: four times the cost of a 48×48.
    public let large = ConformanceImage(seed: 3, width: 96, height: 96)
    /// 48×48, twice, distinct.
    public let tiny1 = ConformanceImage(seed: 4, width: 48, height: 48)
    public let tiny2 = ConformanceImage(seed: 5, width: 48, height: 48)
    /// 256×256 (about 200 KB encoded): several progress reports when throttled.
    public let big = ConformanceImage(seed: 6, width: 256, height: 256)

    public init() {}

    /// A distinct image per index, all 40×40 (the disk size-limit checks need several alike).
    public func series(_ index: Int) -> ConformanceImage {
        ConformanceImage(seed: 100 + UInt64(index), width: 40, height: 40)
    }
}
