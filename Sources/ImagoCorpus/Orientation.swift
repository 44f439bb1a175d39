/// EXIF orientation (tag 0x0112), written here independently of the decoder's C implementation
/// so the references do not inherit its mistakes.
///
/// The tag says how to display the stored pixels: `oriented(_:)` turns stored pixels into the
/// displayed image, `unoriented(_:)` turns a displayed image into the pixels to store.
/// 1 identity, 2 mirror left-right, 3 rotate 180, 4 mirror top-bottom, 5 transpose (mirror
/// across the main diagonal), 6 rotate 90 clockwise, 7 transverse (mirror across the
/// anti-diagonal), 8 rotate 90 counter-clockwise. 5 to 8 swap width and height.
extension RGBAImage {
    /// The displayed image for stored pixels `self` tagged with `orientation` (1...8; any
    /// other value is treated as 1, as decoders do for invalid tags).
    public func oriented(_ orientation: Int) -> RGBAImage {
        let w = width, h = height
        let swaps = (5...8).contains(orientation)
        let outWidth = swaps ? h : w
        let outHeight = swaps ? w : h
        var out = [UInt8](repeating: 0, count: pixels.count)
        for dy in 0..<outHeight {
            for dx in 0..<outWidth {
                // Source (stored) coordinate of display pixel (dx, dy).
                let sx: Int, sy: Int
                switch orientation {
                case 2: (sx, sy) = (w - 1 - dx, dy)
                case 3: (sx, sy) = (w - 1 - dx, h - 1 - dy)
                case 4: (sx, sy) = (dx, h - 1 - dy)
                case 5: (sx, sy) = (dy, dx)
                case 6: (sx, sy) = (dy, h - 1 - dx)
                case 7: (sx, sy) = (w - 1 - dy, h - 1 - dx)
                case 8: (sx, sy) = (w - 1 - dy, dx)
                default: (sx, sy) = (dx, dy)
                }
                let from = (sy * w + sx) * 4
                let to = (dy * outWidth + dx) * 4
                out[to] = pixels[from]
                out[to + 1] = pixels[from + 1]
                out[to + 2] = pixels[from + 2]
                out[to + 3] = pixels[from + 3]
            }
        }
        return RGBAImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// The stored pixels that, tagged with `orientation`, display as `self`.
    public func unoriented(_ orientation: Int) -> RGBAImage {
        oriented(RGBAImage.inverseOrientation(orientation))
    }

    /// The orientation that undoes `orientation`: rotations by 90 degrees swap (6 <-> 8); every
    /// mirror and the 180 degree rotation is its own inverse.
    public static func inverseOrientation(_ orientation: Int) -> Int {
        switch orientation {
        case 6: return 8
        case 8: return 6
        case 1...8: return orientation
        default: return 1
        }
    }
}
