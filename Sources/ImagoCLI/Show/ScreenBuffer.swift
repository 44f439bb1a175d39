/// A 24-bit colour as a terminal's SGR sequences take it.
struct RGB: Hashable, Sendable, CustomStringConvertible {
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    var description: String { "\(red);\(green);\(blue)" }
}

/// How one cell is drawn: colours (nil: the terminal's default) and weight.
struct CellStyle: Hashable, Sendable {
    var foreground: RGB?
    var background: RGB?
    var bold = false

    static let plain = CellStyle()

    /// The whole style as one SGR sequence that starts from a reset (`0`), so it never depends
    /// on what the cell before it left set: `ESC[0;1;38;2;R;G;B;48;2;R;G;Bm`.
    var sgr: String {
        var parameters = "0"
        if bold { parameters += ";1" }
        if let foreground { parameters += ";38;2;\(foreground)" }
        if let background { parameters += ";48;2;\(background)" }
        return "\u{1B}[\(parameters)m"
    }
}

/// One character cell of the screen. Every glyph Imago draws is one column wide.
struct ScreenCell: Hashable, Sendable {
    var glyph: Character
    var style: CellStyle

    init(_ glyph: Character = " ", _ style: CellStyle = .plain) {
        self.glyph = glyph
        self.style = style
    }

    static let blank = ScreenCell()
}

/// A frame being composed: `rows` lines of `columns` cells, blank to start with. Drawing
/// outside it is clipped, so a view never has to check the screen's edges.
struct ScreenBuffer: Equatable, Sendable {
    let columns: Int
    let rows: Int
    private(set) var lines: [[ScreenCell]]

    init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        lines = Array(repeating: Array(repeating: .blank, count: self.columns), count: self.rows)
    }

    subscript(column: Int, row: Int) -> ScreenCell {
        get { lines[row][column] }
        set {
            guard row >= 0, row < rows, column >= 0, column < columns else { return }
            lines[row][column] = newValue
        }
    }

    /// Writes `text` from (`column`, `row`) in `style`, at most `width` cells of it.
    mutating func put(_ text: String, column: Int, row: Int, width: Int, style: CellStyle = .plain) {
        for (offset, glyph) in text.prefix(max(0, width)).enumerated() {
            self[column + offset, row] = ScreenCell(glyph, style)
        }
    }

    /// Copies `block` (rows of cells) with its top-left corner at (`column`, `row`).
    mutating func place(_ block: [[ScreenCell]], column: Int, row: Int) {
        for (dy, line) in block.enumerated() {
            for (dx, cell) in line.enumerated() { self[column + dx, row + dy] = cell }
        }
    }

    /// The text of line `row` without styles (for tests and for reading a frame back).
    func text(ofRow row: Int) -> String { String(lines[row].map(\.glyph)) }
}

/// Turns cells into the bytes a terminal draws them from.
enum SGREncoding {
    /// One line of cells: a style's SGR sequence only where the style changes, the glyphs, and a
    /// reset at the end so nothing bleeds into what is written after it.
    static func encode(_ cells: [ScreenCell]) -> String {
        var out = ""
        var current: CellStyle?
        for cell in cells {
            if cell.style != current {
                out += cell.style.sgr
                current = cell.style
            }
            out.append(cell.glyph)
        }
        return out + "\u{1B}[0m"
    }
}
