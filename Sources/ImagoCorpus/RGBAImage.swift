import Crypto
import Foundation

/// The reference a decoder's output is compared with: 8-bit RGBA, straight (not premultiplied)
/// alpha, tightly packed (stride = width * 4), rows top to bottom. Deliberately a plain value
/// type with no dependency on the decoder under test.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// width * height * 4 bytes, R G B A.
    public var pixels: [UInt8]

    /// Wraps pixels; the count must be width * height * 4.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4,
                     "RGBAImage: \(pixels.count) bytes for \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image filled with one colour.
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)) {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = fill.0
            pixels[index + 1] = fill.1
            pixels[index + 2] = fill.2
            pixels[index + 3] = fill.3
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// Lowercase hex SHA-256 of `pixels` (the bytes only; the size is not hashed, so compare
    /// dimensions separately).
    public var sha256Hex: String {
        SHA256.hash(data: pixels).map { String(format: "%02x", $0) }.joined()
    }

    /// True when some pixel's alpha is not 255.
    public var hasTransparency: Bool {
        stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] != 255 }
    }

    /// Peak signal-to-noise ratios of `other` against this image taken as the reference.
    public struct PSNR: Sendable, Equatable {
        /// Over R, G and B of the pixels whose reference alpha is non-zero: colour under fully
        /// transparent pixels is invisible and lossy encoders (WebP with exact = 0) rewrite it.
        /// `.infinity` when identical or when every pixel is fully transparent.
        public let rgb: Double
        /// Over the alpha channel of every pixel; nil when the reference is fully opaque
        /// (then alpha is not part of the expectation).
        public let alpha: Double?
        /// The worse of the two: what a minimum-PSNR expectation is checked against.
        public var combined: Double { min(rgb, alpha ?? .infinity) }
    }

    /// PSNR (peak 255) of `other` against `self`; nil when the sizes differ.
    public func psnr(of other: RGBAImage) -> PSNR? {
        guard other.width == width, other.height == height else { return nil }
        var colorError: UInt64 = 0
        var colorSamples: UInt64 = 0
        var alphaError: UInt64 = 0
        var opaque = true
        pixels.withUnsafeBufferPointer { a in
            other.pixels.withUnsafeBufferPointer { b in
                for index in stride(from: 0, to: a.count, by: 4) {
                    let da = Int(a[index + 3]) - Int(b[index + 3])
                    alphaError += UInt64(da * da)
                    if a[index + 3] != 255 { opaque = false }
                    if a[index + 3] == 0 { continue }
                    for c in 0..<3 {
                        let d = Int(a[index + c]) - Int(b[index + c])
                        colorError += UInt64(d * d)
                    }
                    colorSamples += 3
                }
            }
        }
        let rgb = RGBAImage.psnr(error: colorError, samples: colorSamples)
        let alpha = opaque ? nil : RGBAImage.psnr(error: alphaError, samples: UInt64(width * height))
        return PSNR(rgb: rgb, alpha: alpha)
    }

    /// 10 log10(255^2 / MSE), infinite for a zero error.
    static func psnr(error: UInt64, samples: UInt64) -> Double {
        guard error > 0, samples > 0 else { return .infinity }
        let mse = Double(error) / Double(samples)
        return 10 * log10(255.0 * 255.0 / mse)
    }
}
