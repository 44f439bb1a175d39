import Testing
@testable import ImagoCLI

/// `imago show`'s grid: every tile inside the screen above the footer, none overlapping, none
/// below its minimum size, and as many shown as fit.
@Suite struct GridLayoutTests {
    @Test(arguments: [
        (1, 80, 24), (2, 80, 24), (3, 80, 24), (4, 80, 24), (5, 120, 40), (9, 200, 60),
        (7, 100, 30), (12, 80, 24), (40, 80, 24), (3, 30, 10), (2, 12, 5),
    ])
    func tilesFitTheScreenWithoutOverlapping(count: Int, columns: Int, rows: Int) {
        let layout = GridLayout(tileCount: count, columns: columns, rows: rows)
        #expect(layout.frames.count + layout.hiddenCount == count)
        #expect(!layout.frames.isEmpty, "at least one tile fits \(columns) × \(rows)")
        #expect(layout.footerRow == rows - 1)
        for frame in layout.frames {
            #expect(frame.column >= 0 && frame.column + frame.width <= columns, "\(frame)")
            #expect(frame.row >= 0 && frame.row + frame.height <= rows - 1, "\(frame) reaches the footer")
            #expect(frame.width >= GridLayout.minimumTileWidth && frame.height >= GridLayout.minimumTileHeight)
        }
        for (index, a) in layout.frames.enumerated() {
            for b in layout.frames[(index + 1)...] {
                let apart = a.column + a.width <= b.column || b.column + b.width <= a.column
                    || a.row + a.height <= b.row || b.row + b.height <= a.row
                #expect(apart, "\(a) overlaps \(b)")
            }
        }
    }

    @Test func oneTileTakesTheWholeScreenAboveTheFooter() {
        let layout = GridLayout(tileCount: 1, columns: 80, rows: 24)
        #expect(layout.frames == [TileFrame(column: 0, row: 0, width: 80, height: 23)])
    }

    @Test func threeTilesOnAWideScreenStandSideBySide() {
        let layout = GridLayout(tileCount: 3, columns: 80, rows: 24)
        #expect(layout.gridColumns == 3)
        #expect(layout.frames == [TileFrame(column: 0, row: 0, width: 25, height: 23),
                                  TileFrame(column: 27, row: 0, width: 25, height: 23),
                                  TileFrame(column: 54, row: 0, width: 25, height: 23)])
    }

    @Test func fourTilesOnATallScreenMakeTwoRowsOfTwo() {
        let layout = GridLayout(tileCount: 4, columns: 60, rows: 50)
        #expect(layout.gridColumns == 2)
        #expect(layout.frames.map(\.row) == [0, 0, 25, 25])
    }

    @Test func tilesThatDoNotFitAreHiddenAndCounted() {
        let layout = GridLayout(tileCount: 40, columns: 80, rows: 24)
        // 80 columns hold 5 tiles of at least 12 (with gaps of 2); 23 rows hold 4 of at least 4 (gaps of 1).
        #expect(layout.frames.count == 20)
        #expect(layout.hiddenCount == 20)
        #expect(ImageGrid.footer(hidden: layout.hiddenCount).contains("20 hidden"))
    }

    @Test(arguments: [(0, 0), (11, 24), (80, 4), (-1, -1)])
    func aScreenTooSmallForOneTileShowsNone(columns: Int, rows: Int) {
        let layout = GridLayout(tileCount: 2, columns: columns, rows: rows)
        #expect(layout.frames.isEmpty)
        #expect(layout.hiddenCount == 2)
    }
}
