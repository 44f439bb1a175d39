import Foundation
import ImagoCorpus

/// Many different small JPEGs for the throughput scenario, made in memory: one procedural
/// photo, each copy shifted and tinted by its index before encoding, so every image has its own
/// pixels and bytes (and its own cache keys) at a fraction of the cost of rendering each anew.
public enum DistinctImages {
    /// `count` JPEGs (quality 85, 4:2:0) of `width` × `height`; the same arguments give the same bytes.
    public static func make(count: Int, width: Int = 640, height: Int = 480, seed: UInt64 = 7) throws -> [[UInt8]] {
        let base = ProceduralImage(seed: seed, width: width, height: height).samples8(channels: 3)
        var variant = base
        return try (0..<count).map { index in
            let shift = (index * 7) % width
            let tint = UInt8(truncatingIfNeeded: index * 37)
            for y in 0..<height {
                for x in 0..<width {
                    let from = (y * width + (x + shift) % width) * 3, to = (y * width + x) * 3
                    variant[to] = base[from] &+ tint
                    variant[to + 1] = base[from + 1]
                    variant[to + 2] = base[from + 2] &- tint / 2
                }
            }
            return try Encoders.jpeg(width: width, height: height, input: .rgb, pixels: variant,
                                     stride: width * 3, quality: 85)
        }
    }
}
