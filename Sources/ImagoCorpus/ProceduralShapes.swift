/// Flat-coloured shapes with hard (unantialiased) edges, painted over the smooth background.
///
/// Real photos have sharp boundaries; without them a JPEG test never sees ringing around edges
/// and a resize test never sees high-contrast steps. Every shape is described as the span of
/// columns it covers on a given row, so painting costs nothing per uncovered pixel.
struct ProceduralShape: Sendable {
    enum Kind: Sendable {
        case disc(centerX: Float, centerY: Float, radius: Float)
        case rectangle(x0: Float, y0: Float, x1: Float, y1: Float)
        /// Everything right of the line x = slope * y + offset (a diagonal edge).
        case halfPlane(slope: Float, offset: Float)
    }

    let kind: Kind
    let red: Float, green: Float, blue: Float
    /// How much the shape replaces what is under it: 1 = fully.
    let opacity: Float

    /// Columns [start, end) covered on pixel row y (pixel centres at +0.5), clamped to width.
    func span(row y: Int, width: Int) -> Range<Int> {
        let py = Float(y) + 0.5
        var start: Float
        var end: Float
        switch kind {
        case let .disc(cx, cy, r):
            let dy = py - cy
            let reach2 = r * r - dy * dy
            if reach2 <= 0 { return 0..<0 }
            let reach = reach2.squareRoot()
            start = cx - reach
            end = cx + reach
        case let .rectangle(x0, y0, x1, y1):
            if py < y0 || py >= y1 { return 0..<0 }
            start = x0
            end = x1
        case let .halfPlane(slope, offset):
            start = slope * py + offset
            end = Float(width)
        }
        // Pixel x is covered when its centre x + 0.5 lies in [start, end).
        let first = max(0, min(width, Int((start - 0.5).rounded(.up))))
        let last = max(first, min(width, Int((end - 0.5).rounded(.up))))
        return first..<last
    }

    /// A handful of shapes scattered deterministically over a width x height canvas.
    static func scatter(seed: UInt64, width: Int, height: Int) -> [ProceduralShape] {
        var random = SeededGenerator(seed: seed ^ 0x5348_4150_4553) // "SHAPES"
        let w = Float(width), h = Float(height)
        let size = min(w, h)
        var shapes: [ProceduralShape] = []
        shapes.append(ProceduralShape(
            kind: .halfPlane(slope: random.float(-0.6, 0.6), offset: w * random.float(0.55, 0.85)),
            red: random.float(0.1, 0.5), green: random.float(0.1, 0.5), blue: random.float(0.1, 0.5),
            opacity: random.float(0.35, 0.6)))
        for index in 0..<5 {
            let kind: Kind
            if index % 2 == 0 {
                kind = .disc(centerX: w * random.unitFloat(), centerY: h * random.unitFloat(),
                             radius: size * random.float(0.06, 0.22))
            } else {
                let x0 = w * random.float(0, 0.8), y0 = h * random.float(0, 0.8)
                kind = .rectangle(x0: x0, y0: y0, x1: x0 + w * random.float(0.05, 0.3),
                                  y1: y0 + h * random.float(0.05, 0.3))
            }
            shapes.append(ProceduralShape(
                kind: kind, red: random.unitFloat(), green: random.unitFloat(), blue: random.unitFloat(),
                opacity: random.float(0.7, 1.0)))
        }
        return shapes
    }
}
