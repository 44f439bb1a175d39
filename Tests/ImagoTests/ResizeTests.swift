import CImagoCodecs
import XCTest
@testable import Imago

/// The C area-average resizer against a straightforward Swift implementation of the same
/// definition (fractional coverage, alpha-weighted colour).
final class ResizeTests: XCTestCase {
    private func naiveAreaAverage(_ src: [UInt8], _ w: Int, _ h: Int, _ ow: Int, _ oh: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: ow * oh * 4)
        for oy in 0..<oh {
            for ox in 0..<ow {
                let x0 = Double(ox) * Double(w) / Double(ow), x1 = Double(ox + 1) * Double(w) / Double(ow)
                let y0 = Double(oy) * Double(h) / Double(oh), y1 = Double(oy + 1) * Double(h) / Double(oh)
                var rgb = [0.0, 0.0, 0.0], alpha = 0.0, area = 0.0
                for y in Int(y0)..<min(h, Int(y1.rounded(.up))) {
                    let wy = min(Double(y + 1), y1) - max(Double(y), y0)
                    for x in Int(x0)..<min(w, Int(x1.rounded(.up))) {
                        let wx = min(Double(x + 1), x1) - max(Double(x), x0)
                        let p = (y * w + x) * 4, a = Double(src[p + 3]), k = wx * wy
                        for c in 0..<3 { rgb[c] += Double(src[p + c]) * a * k }
                        alpha += a * k
                        area += k
                    }
                }
                let q = (oy * ow + ox) * 4
                for c in 0..<3 { out[q + c] = alpha > 0 ? UInt8((rgb[c] / alpha).rounded()) : 0 }
                out[q + 3] = UInt8((alpha / area).rounded())
            }
        }
        return out
    }

    private func resize(_ src: [UInt8], _ w: Int, _ h: Int, _ ow: Int, _ oh: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: ow * oh * 4)
        var error = imago_error()
        let status = imago_resize_rgba(src, UInt32(w), UInt32(h), w * 4, &out, UInt32(ow), UInt32(oh), ow * 4, &error)
        XCTAssertEqual(status, IMAGO_OK)
        return out
    }

    func testMatchesTheDefinitionForOddRatiosWithAlpha() {
        var generator = SystemRandomNumberGenerator()
        for (w, h, ow, oh) in [(37, 23, 10, 7), (100, 1, 33, 1), (64, 64, 16, 16), (5, 9, 5, 4), (13, 13, 1, 1)] {
            let src = (0..<(w * h * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = naiveAreaAverage(src, w, h, ow, oh)
            let actual = resize(src, w, h, ow, oh)
            let worst = zip(expected, actual).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 1, "\(w)x\(h) -> \(ow)x\(oh): float rounding only")
        }
    }

    func testMatchesTheDefinitionForOpaqueSources() {
        // All alpha 255: the resizer sums plain colour (no alpha weighting) on this path.
        var generator = SystemRandomNumberGenerator()
        for (w, h, ow, oh) in [(37, 23, 10, 7), (100, 1, 33, 1), (640, 480, 256, 192), (5, 9, 5, 4), (7, 3, 6, 2)] {
            var src = (0..<(w * h * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for index in stride(from: 3, to: src.count, by: 4) { src[index] = 255 }
            let expected = naiveAreaAverage(src, w, h, ow, oh)
            let worst = zip(expected, resize(src, w, h, ow, oh)).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 1, "\(w)x\(h) -> \(ow)x\(oh): float rounding only")
        }
    }

    func testACellWiderThanTheIntegerSumsBlockStaysExact() {
        // 70,000 white, opaque-ish pixels into one: colour times alpha summed over them passes
        // 2^32, which the resizer's 32-bit block sums must hand on to 64-bit totals in time.
        let w = 70_000
        var src = [UInt8](repeating: 255, count: w * 4)
        for index in stride(from: 3, to: src.count, by: 4) { src[index] = 254 }
        XCTAssertEqual(resize(src, w, 1, 1, 1), [255, 255, 255, 254])
    }

    func testTransparentPixelsDoNotBleedColour() {
        // Opaque red beside fully transparent green: the average is red at half alpha.
        let src: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 0]
        XCTAssertEqual(resize(src, 2, 1, 1, 1), [255, 0, 0, 128])
    }

    func testRefusesUpscaling() {
        var out = [UInt8](repeating: 0, count: 16)
        var error = imago_error()
        XCTAssertEqual(imago_resize_rgba([0, 0, 0, 0], 1, 1, 4, &out, 2, 2, 8, &error), IMAGO_ERR_INVALID_ARGUMENT)
    }
}
