import ImagoCorpus
@testable import ImagoCLI

/// The images `imago show`'s terminal tests serve, with the colours they must show.
enum ShowImages {
    static let red = RGB(230, 30, 40)
    static let green = RGB(20, 200, 60)
    static let blue = RGB(30, 60, 220)
    static let white = RGB(255, 255, 255)
    static let magenta = RGB(200, 0, 200)

    /// 64 × 64, lossless: red top left, green top right, blue bottom left, white bottom right.
    static func quadrants() throws -> [UInt8] {
        var samples: [UInt8] = []
        for y in 0..<64 {
            for x in 0..<64 {
                let colour = y < 32 ? (x < 32 ? red : green) : (x < 32 ? blue : white)
                samples += [colour.red, colour.green, colour.blue]
            }
        }
        return try Encoders.png(width: 64, height: 64, colorType: .rgb, bitDepth: 8, interlaced: false,
                                samples: samples, stride: 64 * 3)
    }

    /// `width` × `height` of one colour, lossless.
    static func solid(_ colour: RGB, width: Int, height: Int) throws -> [UInt8] {
        let samples = Array(repeating: [colour.red, colour.green, colour.blue], count: width * height).flatMap { $0 }
        return try Encoders.png(width: width, height: height, colorType: .rgb, bitDepth: 8, interlaced: false,
                                samples: samples, stride: width * 3)
    }

    /// A 480 × 360 progressive JPEG: its first scans make previews long before its last byte.
    static func progressiveJPEG() throws -> [UInt8] {
        let image = ProceduralImage(seed: 23, width: 480, height: 360)
        return try Encoders.jpeg(width: 480, height: 360, input: .rgb, pixels: image.samples8(channels: 3),
                                 stride: 480 * 3, quality: 85, progressive: true)
    }
}
