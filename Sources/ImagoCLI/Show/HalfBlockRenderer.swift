import Imago

/// Pixels as terminal cells: each cell is an upper half block "▀" whose foreground is one pixel
/// and whose background is the pixel below it, in 24-bit colour, so a cell (about twice as tall
/// as it is wide) holds two square pixels.
///
/// The image is fitted into the box keeping its aspect ratio (scaled up or down), then each
/// pixel of the fitted size is the average of the source pixels it covers (a box filter: every
/// source pixel counts once when shrinking). Alpha is composited over black; a fully
/// transparent pixel is left to the terminal's own background.
enum HalfBlockRenderer {
    /// The size of `width` × `height` pixels fitted into `columns` × `rows` cells (`rows * 2`
    /// pixels high), keeping the aspect ratio: at least one pixel each way, never more than the box.
    static func fittedPixels(width: Int, height: Int, columns: Int, rows: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0, columns > 0, rows > 0 else { return (0, 0) }
        let boxHeight = rows * 2
        let scale = min(Double(columns) / Double(width), Double(boxHeight) / Double(height))
        let fittedWidth = min(columns, max(1, Int((Double(width) * scale).rounded())))
        let fittedHeight = min(boxHeight, max(1, Int((Double(height) * scale).rounded())))
        return (fittedWidth, fittedHeight)
    }

    /// The cells of `pixels` fitted into `columns` × `rows`: `ceil(fitted height / 2)` lines
    /// of `fitted width` cells (an odd last pixel row leaves its lower halves to the background).
    static func render(_ pixels: PixelBuffer, columns: Int, rows: Int) -> [[ScreenCell]] {
        let size = fittedPixels(width: pixels.width, height: pixels.height, columns: columns, rows: rows)
        guard size.width > 0 else { return [] }
        let colours = boxFiltered(pixels, width: size.width, height: size.height)
        return stride(from: 0, to: size.height, by: 2).map { top in
            (0..<size.width).map { x in
                cell(upper: colours[top * size.width + x],
                     lower: top + 1 < size.height ? colours[(top + 1) * size.width + x] : nil)
            }
        }
    }

    /// One cell from the pixel above and the pixel below (nil: transparent or absent).
    static func cell(upper: RGB?, lower: RGB?) -> ScreenCell {
        switch (upper, lower) {
        case (let upper?, let lower):
            ScreenCell("▀", CellStyle(foreground: upper, background: lower))
        case (nil, let lower?):
            ScreenCell("▄", CellStyle(foreground: lower, background: nil))
        case (nil, nil):
            .blank
        }
    }

    /// `pixels` scaled to `width` × `height`, row by row: each output pixel averages the source
    /// rectangle it covers (at least one source pixel), premultiplied by alpha, so the result
    /// is the image over black; nil where the rectangle is wholly transparent.
    static func boxFiltered(_ pixels: PixelBuffer, width: Int, height: Int) -> [RGB?] {
        var out = [RGB?](repeating: nil, count: width * height)
        pixels.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            for oy in 0..<height {
                let y0 = oy * pixels.height / height
                let y1 = max(y0 + 1, (oy + 1) * pixels.height / height)
                for ox in 0..<width {
                    let x0 = ox * pixels.width / width
                    let x1 = max(x0 + 1, (ox + 1) * pixels.width / width)
                    var red = 0, green = 0, blue = 0, alpha = 0
                    for y in y0..<y1 {
                        var p = y * pixels.bytesPerRow + x0 * 4
                        for _ in x0..<x1 {
                            let a = Int(bytes[p + 3])
                            red += Int(bytes[p]) * a
                            green += Int(bytes[p + 1]) * a
                            blue += Int(bytes[p + 2]) * a
                            alpha += a
                            p += 4
                        }
                    }
                    guard alpha > 0 else { continue }
                    let divisor = 255 * (x1 - x0) * (y1 - y0)
                    func average(_ sum: Int) -> UInt8 { UInt8((sum + divisor / 2) / divisor) }
                    out[oy * width + ox] = RGB(average(red), average(green), average(blue))
                }
            }
        }
        return out
    }
}
