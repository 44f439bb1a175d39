/// Where one tile goes on the screen, in cells (0-based).
struct TileFrame: Hashable, Sendable {
    var column: Int
    var row: Int
    var width: Int
    var height: Int
}

/// How `imago show` places its tiles: a grid of equal tiles above a one-line footer, with as
/// many columns as give the largest images (a tile's image area is its height less a title and
/// a status line, and a cell is two pixels high). Tiles never shrink below
/// `minimumTileWidth` × `minimumTileHeight`: when not all of them fit, the first ones that do
/// are shown and the rest are hidden until the terminal grows.
struct GridLayout: Hashable, Sendable {
    /// A title, two image rows (one cell of image needs at least that to be recognisable) and a status line.
    static let minimumTileHeight = 4
    /// Room for a status line such as "██████░░ 100%".
    static let minimumTileWidth = 12
    /// Blank columns between two tiles side by side.
    static let columnGap = 2
    /// Blank rows between two tiles one above the other.
    static let rowGap = 1

    /// The visible tiles' frames, in the order of the sources (the first `frames.count`).
    let frames: [TileFrame]
    /// Tiles per row of the grid (0 when none is visible).
    let gridColumns: Int
    /// The screen row of the footer (the last row), or nil when the screen has no rows.
    let footerRow: Int?
    /// Tiles that do not fit.
    let hiddenCount: Int

    /// The layout of `tileCount` tiles on a screen of `columns` × `rows` cells.
    init(tileCount: Int, columns: Int, rows: Int) {
        footerRow = rows > 0 ? rows - 1 : nil
        let height = rows - 1
        for shown in stride(from: tileCount, through: 1, by: -1) {
            if let grid = Self.bestGrid(for: shown, columns: columns, height: height) {
                gridColumns = grid.columns
                frames = (0..<shown).map { index in
                    TileFrame(column: (index % grid.columns) * (grid.tileWidth + Self.columnGap),
                              row: (index / grid.columns) * (grid.tileHeight + Self.rowGap),
                              width: grid.tileWidth, height: grid.tileHeight)
                }
                hiddenCount = tileCount - shown
                return
            }
        }
        frames = []
        gridColumns = 0
        hiddenCount = max(0, tileCount)
    }

    private struct Grid {
        var columns: Int
        var tileWidth: Int
        var tileHeight: Int
        /// The side, in pixels, of the largest square image a tile shows.
        var squareSide: Int { min(tileWidth, (tileHeight - 2) * 2) }
    }

    /// The grid of `count` tiles in `columns` × `height` cells whose tiles show the largest
    /// square image (then: the largest tiles), or nil when no grid keeps tiles at their minimum.
    private static func bestGrid(for count: Int, columns: Int, height: Int) -> Grid? {
        var best: Grid?
        for gridColumns in 1...count {
            let gridRows = (count + gridColumns - 1) / gridColumns
            let grid = Grid(columns: gridColumns,
                            tileWidth: (columns - (gridColumns - 1) * columnGap) / gridColumns,
                            tileHeight: (height - (gridRows - 1) * rowGap) / gridRows)
            guard grid.tileWidth >= minimumTileWidth, grid.tileHeight >= minimumTileHeight else { continue }
            if let current = best {
                let better = grid.squareSide > current.squareSide
                    || (grid.squareSide == current.squareSide
                        && grid.tileWidth * grid.tileHeight > current.tileWidth * current.tileHeight)
                if !better { continue }
            }
            best = grid
        }
        return best
    }
}
