/// One octave of 2-D value noise: random values on a square lattice, smoothly interpolated.
///
/// The lattice and the per-column interpolation tables are computed once, so a pixel costs four
/// loads and three lerps. That is what makes 40 MP of photo-like content take seconds rather
/// than minutes; hashing every lattice corner per pixel would be several times slower.
struct NoiseLayer: Sendable {
    /// Lattice spacing in pixels (at least 2).
    let cell: Int
    /// Peak contribution of this octave; lattice values are in [-amplitude, amplitude).
    let amplitude: Float
    private let latticeWidth: Int
    private let lattice: [Float]
    /// Lattice column of each image column, and its smoothstep weight towards the next one.
    private let columnIndex: [Int32]
    private let columnWeight: [Float]

    init(seed: UInt64, layer: UInt64, cell: Int, amplitude: Float, width: Int, height: Int) {
        let cell = max(2, cell)
        self.cell = cell
        self.amplitude = amplitude
        let latticeWidth = width / cell + 2
        let latticeHeight = height / cell + 2
        self.latticeWidth = latticeWidth
        var lattice = [Float](repeating: 0, count: latticeWidth * latticeHeight)
        for j in 0..<latticeHeight {
            for i in 0..<latticeWidth {
                let h = SeededGenerator.hash(seed: seed, layer: layer, x: i, y: j)
                lattice[j * latticeWidth + i] = (Float(h >> 40) * (2.0 / 16_777_216.0) - 1) * amplitude
            }
        }
        self.lattice = lattice
        var columnIndex = [Int32](repeating: 0, count: width)
        var columnWeight = [Float](repeating: 0, count: width)
        for x in 0..<width {
            columnIndex[x] = Int32(x / cell)
            columnWeight[x] = NoiseLayer.smoothstep(Float(x % cell) / Float(cell))
        }
        self.columnIndex = columnIndex
        self.columnWeight = columnWeight
    }

    /// 3t^2 - 2t^3: continuous first derivative, so octaves do not show lattice creases.
    @inline(__always)
    static func smoothstep(_ t: Float) -> Float {
        t * t * (3 - 2 * t)
    }

    /// Adds this octave's values for row `y` to `row[0..<width]`.
    func accumulate(row y: Int, into row: UnsafeMutableBufferPointer<Float>) {
        let j = y / cell
        let wy = NoiseLayer.smoothstep(Float(y % cell) / Float(cell))
        lattice.withUnsafeBufferPointer { grid in
            columnIndex.withUnsafeBufferPointer { indices in
                columnWeight.withUnsafeBufferPointer { weights in
                    let top = j * latticeWidth
                    let bottom = top + latticeWidth
                    for x in 0..<row.count {
                        let i = Int(indices[x])
                        let wx = weights[x]
                        let a = grid[top + i], b = grid[top + i + 1]
                        let c = grid[bottom + i], d = grid[bottom + i + 1]
                        let upper = a + (b - a) * wx
                        let lower = c + (d - c) * wx
                        row[x] += upper + (lower - upper) * wy
                    }
                }
            }
        }
    }
}
