import Imago
import Testing
@testable import ImagoCLI

/// `imago show`'s pixels-to-cells: exact escapes, the box filter, the aspect fit, alpha.
@Suite struct HalfBlockRendererTests {
    /// Pixels from (r, g, b, a) rows.
    static func pixels(_ rows: [[(UInt8, UInt8, UInt8, UInt8)]]) -> PixelBuffer {
        PixelBuffer(width: rows[0].count, height: rows.count,
                    rgba: rows.flatMap { $0.flatMap { [$0.0, $0.1, $0.2, $0.3] } })
    }

    @Test func aTwoByTwoImageIsTwoHalfBlocksWithExactEscapes() {
        let image = Self.pixels([[(255, 0, 0, 255), (0, 255, 0, 255)],
                                 [(0, 0, 255, 255), (255, 255, 255, 255)]])
        let lines = HalfBlockRenderer.render(image, columns: 2, rows: 1)
        #expect(lines.count == 1)
        let escape = "\u{1B}["
        #expect(SGREncoding.encode(lines[0])
                == "\(escape)0;38;2;255;0;0;48;2;0;0;255m▀\(escape)0;38;2;0;255;0;48;2;255;255;255m▀\(escape)0m")
    }

    @Test func aStyleIsWrittenOnlyWhereItChanges() {
        let red = CellStyle(foreground: RGB(255, 0, 0), background: RGB(255, 0, 0))
        let line = [ScreenCell("▀", red), ScreenCell("▀", red), ScreenCell("a", .plain)]
        #expect(SGREncoding.encode(line) == "\u{1B}[0;38;2;255;0;0;48;2;255;0;0m▀▀\u{1B}[0ma\u{1B}[0m")
    }

    @Test func shrinkingAveragesEverySourcePixelOnce() {
        // 4 × 4: the left half alternates black and white columns, the right half is (10, 20, 30).
        let row: [(UInt8, UInt8, UInt8, UInt8)] = [(0, 0, 0, 255), (255, 255, 255, 255), (10, 20, 30, 255), (10, 20, 30, 255)]
        let image = Self.pixels(Array(repeating: row, count: 4))
        let colours = HalfBlockRenderer.boxFiltered(image, width: 2, height: 2)
        #expect(colours == [RGB(128, 128, 128), RGB(10, 20, 30), RGB(128, 128, 128), RGB(10, 20, 30)])
    }

    @Test(arguments: [
        // (image width, height, box columns, rows) -> fitted pixels (width, height)
        ((100, 50, 80, 20), (80, 40)),   // wide: both limits agree
        ((10, 100, 80, 20), (4, 40)),    // tall: the height limits
        ((300, 10, 80, 20), (80, 3)),    // very wide: the width limits
        ((2, 2, 2, 1), (2, 2)),          // exact
        ((3, 3, 10, 2), (4, 4)),         // scaled up to the box's height
        ((1000, 1, 5, 5), (5, 1)),       // never thinner than one pixel
    ])
    func fitKeepsTheAspectRatio(input: (Int, Int, Int, Int), expected: (Int, Int)) {
        let fitted = HalfBlockRenderer.fittedPixels(width: input.0, height: input.1, columns: input.2, rows: input.3)
        #expect(fitted.width == expected.0 && fitted.height == expected.1)
    }

    @Test func anOddLastPixelRowLeavesTheLowerHalvesToTheBackground() {
        let grey: (UInt8, UInt8, UInt8, UInt8) = (50, 50, 50, 255)
        let image = Self.pixels(Array(repeating: [grey, grey, grey], count: 3))
        let lines = HalfBlockRenderer.render(image, columns: 3, rows: 2)
        #expect(lines.count == 2 && lines.allSatisfy { $0.count == 3 })
        #expect(lines[1][0] == ScreenCell("▀", CellStyle(foreground: RGB(50, 50, 50), background: nil)))
    }

    @Test func alphaIsCompositedOverBlackAndTransparentIsBackground() {
        let image = Self.pixels([[(200, 100, 50, 0), (200, 100, 50, 128)],
                                 [(200, 100, 50, 0), (200, 100, 50, 0)]])
        let line = HalfBlockRenderer.render(image, columns: 2, rows: 1)[0]
        #expect(line[0] == .blank)
        #expect(line[1] == ScreenCell("▀", CellStyle(foreground: RGB(100, 50, 25), background: nil)))
        let lowerOnly = HalfBlockRenderer.cell(upper: nil, lower: RGB(1, 2, 3))
        #expect(lowerOnly == ScreenCell("▄", CellStyle(foreground: RGB(1, 2, 3))))
    }
}
