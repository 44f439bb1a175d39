import Imago

/// What one source's tile shows for each phase of its model: a title line (the source), an
/// image area, and a status line.
///
/// - `empty`: a shaded placeholder labelled "empty"; status "empty".
/// - `loading`: the latest preview (or the image shown before a source change), else the
///   placeholder labelled "loading"; status a progress bar with the percentage when the size
///   is known, else the bytes received ("loading…" before the first byte), and the preview's
///   scan or pass number.
/// - `success`: the image, fitted and centred; status "✓ WIDTH×HEIGHT FORMAT · ORIGIN".
/// - `failure`: "failed", the reason (`ImageLoadingError.detail`, wrapped) and "press r to
///   retry"; status "✗ " and the short reason.
struct TileView {
    let title: String
    let phase: ImagePhase
    let width: Int
    let height: Int
    /// Draws an image into at most so many columns and rows (a cache in front of
    /// `HalfBlockRenderer.render`, in the app).
    var renderImage: (PixelBuffer, _ columns: Int, _ rows: Int) -> [[ScreenCell]] = HalfBlockRenderer.render

    static let titleStyle = CellStyle(bold: true)
    static let quietStyle = CellStyle(foreground: RGB(150, 150, 150))
    static let placeholderStyle = CellStyle(foreground: RGB(70, 70, 70))
    static let barStyle = CellStyle(foreground: RGB(80, 160, 230))
    static let successStyle = CellStyle(foreground: RGB(100, 200, 100))
    static let failureStyle = CellStyle(foreground: RGB(235, 90, 80), bold: true)

    /// The image area: the tile less its title and status lines.
    var imageColumns: Int { width }
    var imageRows: Int { max(0, height - 2) }

    /// The tile's cells: `height` lines of `width`.
    func cells() -> [[ScreenCell]] {
        var tile = ScreenBuffer(columns: width, rows: height)
        guard width > 0, height > 0 else { return tile.lines }
        tile.put(Self.truncated(title, to: width), column: 0, row: 0, width: width, style: Self.titleStyle)
        drawImageArea(into: &tile)
        if height > 1 {
            let (status, style) = statusLine()
            tile.put(status, column: 0, row: height - 1, width: width, style: style)
        }
        return tile.lines
    }

    /// The frame, inside the image area, of an image fitted to it (centred).
    static func imageFrame(imageWidth: Int, imageHeight: Int, areaColumns: Int, areaRows: Int) -> TileFrame {
        let fitted = HalfBlockRenderer.fittedPixels(width: imageWidth, height: imageHeight, columns: areaColumns, rows: areaRows)
        let rows = (fitted.height + 1) / 2
        return TileFrame(column: (areaColumns - fitted.width) / 2, row: (areaRows - rows) / 2, width: fitted.width, height: rows)
    }

    private func drawImageArea(into tile: inout ScreenBuffer) {
        guard imageRows > 0 else { return }
        switch phase {
        case .empty:
            drawPlaceholder("empty", into: &tile)
        case .loading(_, let previous, let preview):
            if let pixels = preview?.pixels ?? previous {
                drawImage(pixels, into: &tile)
            } else {
                drawPlaceholder("loading", into: &tile)
            }
        case .success(let response):
            drawImage(response.pixels, into: &tile)
        case .failure(let error):
            let lines = ["failed"] + Self.wrapped(error.detail, width: width - 2) + ["press r to retry"]
            let top = max(0, (imageRows - lines.count) / 2)
            for (index, line) in lines.prefix(imageRows).enumerated() {
                let style = index == 0 ? Self.failureStyle : (index == lines.count - 1 ? Self.quietStyle : .plain)
                tile.put(line, column: 1, row: 1 + top + index, width: width - 2, style: style)
            }
        }
    }

    private func drawImage(_ pixels: PixelBuffer, into tile: inout ScreenBuffer) {
        let frame = Self.imageFrame(imageWidth: pixels.width, imageHeight: pixels.height,
                                    areaColumns: imageColumns, areaRows: imageRows)
        tile.place(renderImage(pixels, imageColumns, imageRows), column: frame.column, row: 1 + frame.row)
    }

    private func drawPlaceholder(_ label: String, into tile: inout ScreenBuffer) {
        for row in 1...imageRows {
            tile.put(String(repeating: "░", count: width), column: 0, row: row, width: width, style: Self.placeholderStyle)
        }
        let text = " \(label) "
        tile.put(text, column: max(0, (width - text.count) / 2), row: 1 + (imageRows - 1) / 2, width: width,
                 style: Self.quietStyle)
    }

    /// The status line's text and style for the phase, at most `width` characters.
    func statusLine() -> (String, CellStyle) {
        switch phase {
        case .empty:
            return ("empty", Self.quietStyle)
        case .loading(let progress, _, let preview):
            return (Self.progressText(progress, preview: preview?.detail, width: width), Self.barStyle)
        case .success(let response):
            let size = "\(response.pixels.width)×\(response.pixels.height)"
            let text = "✓ \(size) \(response.image.metadata.format.rawValue) · \(response.origin.rawValue)"
            return (Self.truncated(text, to: width), Self.successStyle)
        case .failure(let error):
            return (Self.truncated("✗ \(error.description)", to: width), Self.failureStyle)
        }
    }

    /// "█████░░░░ 42%" with " · preview N" when there is room; "loading 12.5 KiB" when the size
    /// is unknown; "loading…" before the first byte.
    static func progressText(_ progress: FetchProgress?, preview: Int?, width: Int) -> String {
        let previewText = preview.map { " · preview \($0)" } ?? ""
        guard let progress else { return truncated("loading…" + previewText, to: width) }
        guard let fraction = progress.fraction else {
            return truncated("loading \(byteCount(progress.received))" + previewText, to: width)
        }
        let percent = " \(Int((fraction * 100).rounded(.down)))%"
        let minimumBar = 3
        let suffix = width - minimumBar >= percent.count + previewText.count ? percent + previewText : percent
        let barWidth = max(0, width - suffix.count)
        let filled = Int((fraction * Double(barWidth)).rounded(.down))
        return truncated(String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + suffix,
                         to: width)
    }

    /// "512 B", "12.5 KiB", "3.2 MiB".
    static func byteCount(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let units = ["KiB", "MiB", "GiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return "\((value * 10).rounded() / 10) \(units[unit])"
    }

    /// `text` cut to `width` characters, ending in "…" when cut.
    static func truncated(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(max(0, width))) }
        return String(text.prefix(width - 1)) + "…"
    }

    /// `text` cut to its last `width` characters, starting with "…" when cut (a source's
    /// end, its file name, says most).
    static func truncatedFromStart(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.suffix(max(0, width))) }
        return "…" + text.suffix(width - 1)
    }

    /// `text` in lines of at most `width` characters, broken at spaces where it can be.
    static func wrapped(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            var word = Substring(word)
            while word.count > width {   // a word longer than a line is cut
                if !line.isEmpty { lines.append(line); line = "" }
                lines.append(String(word.prefix(width)))
                word = word.dropFirst(width)
            }
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
