@testable import ImagoCLI

/// A screen captured by `tmux capture-pane -p -e`, read back into cells: each character with
/// the 24-bit foreground and background colours its SGR sequences gave it.
struct CapturedScreen {
    struct Cell: Equatable {
        var glyph: Character
        var foreground: RGB?
        var background: RGB?
    }

    let rows: [[Cell]]

    init(_ capture: String) {
        var rows: [[Cell]] = []
        var row: [Cell] = []
        var foreground: RGB?
        var background: RGB?
        var characters = capture[...]
        while let character = characters.popFirst() {
            if character == "\n" {
                rows.append(row)
                row = []
            } else if character == "\u{1B}" {
                guard characters.first == "[" else { continue }
                characters.removeFirst()
                // Parameters up to the final byte; only SGR ("m") changes what is recorded.
                var parameters = ""
                while let next = characters.popFirst() {
                    if let ascii = next.asciiValue, (0x40...0x7E).contains(ascii) {
                        if next == "m" { Self.apply(parameters, foreground: &foreground, background: &background) }
                        break
                    }
                    parameters.append(next)
                }
            } else {
                row.append(Cell(glyph: character, foreground: foreground, background: background))
            }
        }
        if !row.isEmpty { rows.append(row) }
        self.rows = rows
    }

    /// The cell at (`column`, `row`), or nil past the end of its line (tmux trims trailing blanks).
    subscript(column: Int, row: Int) -> Cell? {
        guard row >= 0, row < rows.count, column >= 0, column < rows[row].count else { return nil }
        return rows[row][column]
    }

    /// The text of `row` from `column`, `width` characters at most.
    func text(row: Int, column: Int = 0, width: Int = .max) -> String {
        guard row >= 0, row < rows.count else { return "" }
        return String(rows[row].dropFirst(column).prefix(width).map(\.glyph))
    }

    /// The text inside `frame`, one line per row.
    func text(in frame: TileFrame) -> String {
        (frame.row..<(frame.row + frame.height)).map { text(row: $0, column: frame.column, width: frame.width) }
            .joined(separator: "\n")
    }

    /// Both halves' colours of the cell at (`column`, `row`), when it is a half block.
    func halfBlockColours(column: Int, row: Int) -> (upper: RGB?, lower: RGB?)? {
        guard let cell = self[column, row], cell.glyph == "▀" else { return nil }
        return (cell.foreground, cell.background)
    }

    private static func apply(_ text: String, foreground: inout RGB?, background: inout RGB?) {
        var codes = text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
        if codes.isEmpty { codes = [0] }
        while let code = codes.popFirst() {
            switch code {
            case 0: foreground = nil; background = nil
            case 39: foreground = nil
            case 49: background = nil
            case 38, 48:
                let kind = codes.popFirst()
                var colour: RGB?
                if kind == 2, codes.count >= 3 {
                    colour = RGB(UInt8(clamping: codes.removeFirst()), UInt8(clamping: codes.removeFirst()),
                                 UInt8(clamping: codes.removeFirst()))
                } else if kind == 5 {
                    _ = codes.popFirst()   // a 256-colour index: not a colour this test can check
                }
                if code == 38 { foreground = colour } else { background = colour }
            case 30...37, 90...97: foreground = nil   // palette colours: not checked
            case 40...47, 100...107: background = nil
            default: break                             // weight, underline...: not checked
            }
        }
    }
}
