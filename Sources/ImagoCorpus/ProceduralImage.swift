import Dispatch

/// Where the procedural image is transparent.
public enum AlphaPattern: String, Codable, Sendable, CaseIterable {
    /// Fully opaque everywhere.
    case none
    /// Opaque disc in the middle (out to 45% of the half-diagonal), a soft ramp, and fully
    /// transparent corners (beyond 80%), so fully transparent, fully opaque and partial alpha
    /// all occur in any image larger than a few pixels.
    case radial
}

/// 16-bit-per-channel RGBA samples, tightly packed, rows top to bottom.
public struct Samples16: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// width * height * 4 values, R G B A.
    public var values: [UInt16]
}

/// Deterministic photo-like test content.
///
/// Photos are smooth gradients with texture at several scales, some hard edges and a little
/// sensor grain; that mix is what gives encoders realistic work (a 12 MP JPEG at quality 85 is a
/// few MB, neither the 300 KB of a flat gradient nor the 15 MB of pure noise). Samples are
/// produced at 16 bits so 16-bit PNGs carry real low-byte data. Only IEEE +, -, *, / and sqrt
/// are used, so the output is the same on every platform.
public struct ProceduralImage: Sendable {
    /// Knobs for the content; the defaults are what the corpus uses.
    public struct Options: Sendable, Hashable {
        /// Transparency pattern. Default: `.none` (opaque).
        public var alpha: AlphaPattern
        /// Scale of the fine texture octaves (cells of 24, 9, 4 and 2 pixels). Default: 1.3.
        public var detail: Float
        /// Peak per-pixel grain, as a fraction of full scale. Default: 0.025 (about ±6 of 255).
        public var grain: Float

        public init(alpha: AlphaPattern = .none, detail: Float = 1.3, grain: Float = 0.025) {
            self.alpha = alpha
            self.detail = detail
            self.grain = grain
        }
    }

    public let seed: UInt64
    public let width: Int
    public let height: Int
    public let options: Options

    private let luminance: [NoiseLayer]
    private let chromaA: [NoiseLayer]
    private let chromaB: [NoiseLayer]
    private let shapes: [ProceduralShape]
    /// Top-left and bottom-right colours of the background gradient.
    private let topColor: (Float, Float, Float)
    private let bottomColor: (Float, Float, Float)

    /// Content is a pure function of (seed, width, height, options). Width and height must be
    /// at least 1.
    public init(seed: UInt64, width: Int, height: Int, options: Options = Options()) {
        precondition(width > 0 && height > 0, "ProceduralImage needs a positive size")
        self.seed = seed
        self.width = width
        self.height = height
        self.options = options
        let extent = max(width, height)
        let d = options.detail
        let octaves: [(cell: Int, amplitude: Float)] = [
            (extent * 2 / 5, 0.22), (extent / 7, 0.12), (24, 0.1 * d), (9, 0.075 * d), (4, 0.06 * d),
            (2, 0.05 * d),
        ]
        luminance = octaves.enumerated().map { index, octave in
            NoiseLayer(seed: seed, layer: UInt64(index), cell: octave.cell, amplitude: octave.amplitude,
                       width: width, height: height)
        }
        chromaA = [
            NoiseLayer(seed: seed, layer: 10, cell: extent / 3, amplitude: 0.08, width: width, height: height),
            NoiseLayer(seed: seed, layer: 11, cell: extent / 9, amplitude: 0.04, width: width, height: height),
        ]
        chromaB = [
            NoiseLayer(seed: seed, layer: 20, cell: extent / 3, amplitude: 0.08, width: width, height: height),
            NoiseLayer(seed: seed, layer: 21, cell: extent / 9, amplitude: 0.04, width: width, height: height),
        ]
        shapes = ProceduralShape.scatter(seed: seed, width: width, height: height)
        var random = SeededGenerator(seed: seed ^ 0x4752_4144) // "GRAD"
        topColor = (random.float(0.45, 0.95), random.float(0.45, 0.95), random.float(0.5, 1.0))
        bottomColor = (random.float(0.05, 0.5), random.float(0.05, 0.5), random.float(0.0, 0.4))
    }

    /// The image as 16-bit RGBA (alpha 65535 everywhere when `options.alpha` is `.none`).
    public func samples16() -> Samples16 {
        var values = [UInt16](repeating: 0, count: width * height * 4)
        values.withUnsafeMutableBufferPointer { output in
            forEachRowInParallel { y, rgba in
                let base = y * width * 4
                for index in 0..<(width * 4) {
                    output[base + index] = UInt16(rgba[index] * 65535 + 0.5)
                }
            }
        }
        return Samples16(width: width, height: height, values: values)
    }

    /// 8-bit samples with `channels` 3 (RGB) or 4 (RGBA) per pixel, each round(v16 / 257) of
    /// the 16-bit value: the same reduction the PNG references use. For large bench inputs,
    /// where holding the 16-bit image too would double the memory.
    public func samples8(channels: Int) -> [UInt8] {
        precondition(channels == 3 || channels == 4, "channels must be 3 or 4")
        var values = [UInt8](repeating: 0, count: width * height * channels)
        values.withUnsafeMutableBufferPointer { output in
            forEachRowInParallel { y, rgba in
                var offset = y * width * channels
                for x in 0..<width {
                    for c in 0..<channels {
                        let v16 = UInt32(rgba[x * 4 + c] * 65535 + 0.5)
                        output[offset + c] = UInt8((v16 + 128) / 257)
                    }
                    offset += channels
                }
            }
        }
        return values
    }

    /// Renders rows in two interleaved halves on separate threads (the machines this runs on
    /// have two cores). Rows are independent, so the result does not depend on scheduling.
    private func forEachRowInParallel(_ body: (Int, UnsafeBufferPointer<Float>) -> Void) {
        let workers = height >= 64 ? 2 : 1
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let rgba = UnsafeMutableBufferPointer<Float>.allocate(capacity: width * 4)
                let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: width * 3)
                defer { rgba.deallocate(); scratch.deallocate() }
                var y = worker
                while y < height {
                    renderRow(y, into: rgba, scratch: scratch)
                    body(y, UnsafeBufferPointer(rgba))
                    y += workers
                }
            }
        }
    }

    /// Fills `rgba` (width * 4 floats in [0, 1]) for row y. `scratch` holds width * 3 floats.
    private func renderRow(_ y: Int, into rgba: UnsafeMutableBufferPointer<Float>,
                           scratch: UnsafeMutableBufferPointer<Float>) {
        let lum = UnsafeMutableBufferPointer(rebasing: scratch[0..<width])
        let ca = UnsafeMutableBufferPointer(rebasing: scratch[width..<(2 * width)])
        let cb = UnsafeMutableBufferPointer(rebasing: scratch[(2 * width)..<(3 * width)])
        lum.initialize(repeating: 0)
        ca.initialize(repeating: 0)
        cb.initialize(repeating: 0)
        for layer in luminance { layer.accumulate(row: y, into: lum) }
        for layer in chromaA { layer.accumulate(row: y, into: ca) }
        for layer in chromaB { layer.accumulate(row: y, into: cb) }

        // Background: vertical gradient between the two colours, tilted by a horizontal term.
        let v = (Float(y) + 0.5) / Float(height)
        let invWidth = 1 / Float(width)
        for x in 0..<width {
            let u = (Float(x) + 0.5) * invWidth
            let t = min(1, max(0, v * 0.8 + u * 0.2))
            rgba[x * 4] = topColor.0 + (bottomColor.0 - topColor.0) * t
            rgba[x * 4 + 1] = topColor.1 + (bottomColor.1 - topColor.1) * t
            rgba[x * 4 + 2] = topColor.2 + (bottomColor.2 - topColor.2) * t
        }
        for shape in shapes {
            let keep = 1 - shape.opacity
            for x in shape.span(row: y, width: width) {
                rgba[x * 4] = rgba[x * 4] * keep + shape.red * shape.opacity
                rgba[x * 4 + 1] = rgba[x * 4 + 1] * keep + shape.green * shape.opacity
                rgba[x * 4 + 2] = rgba[x * 4 + 2] * keep + shape.blue * shape.opacity
            }
        }
        // Texture multiplies everything (shapes included, like a surface), then grain.
        let grain = options.grain
        let radial = options.alpha == .radial
        let dy = 2 * v - 1
        for x in 0..<width {
            let h = SeededGenerator.hash(seed: seed, layer: 99, x: x, y: y)
            let shared = (Float(h & 0xFFFF) * (1.0 / 65535.0) - 0.5) * 2 * grain
            let own0 = (Float((h >> 16) & 0xFFFF) * (1.0 / 65535.0) - 0.5) * 0.6 * grain
            let own1 = (Float((h >> 32) & 0xFFFF) * (1.0 / 65535.0) - 0.5) * 0.6 * grain
            let own2 = (Float((h >> 48) & 0xFFFF) * (1.0 / 65535.0) - 0.5) * 0.6 * grain
            let gain = 1 + lum[x]
            rgba[x * 4] = clamp(rgba[x * 4] * gain + ca[x] + shared + own0)
            rgba[x * 4 + 1] = clamp(rgba[x * 4 + 1] * gain - 0.5 * ca[x] + cb[x] + shared + own1)
            rgba[x * 4 + 2] = clamp(rgba[x * 4 + 2] * gain - cb[x] + shared + own2)
            if radial {
                let dx = 2 * (Float(x) + 0.5) * invWidth - 1
                let distance = ((dx * dx + dy * dy) * 0.5).squareRoot() // 1 at the corners
                rgba[x * 4 + 3] = clamp((0.8 - distance) * (1 / 0.35))
            } else {
                rgba[x * 4 + 3] = 1
            }
        }
    }

    @inline(__always)
    private func clamp(_ value: Float) -> Float {
        min(1, max(0, value))
    }
}
