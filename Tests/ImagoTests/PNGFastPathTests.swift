import CImagoCodecs
import Foundation
import ImagoCorpus
import Testing
@testable import Imago

/// The PNG fast path (issue 27): exact pixels for every filter type, RGB and RGBA, odd widths,
/// through the fast path itself (SIMD and scalar) and through the decoder; declining, with
/// `out` untouched, on what libpng must judge, whose error the decoder then reports; and the
/// memory estimate declaring the fast path's working bytes only for full-size decodes.
@Suite struct PNGFastPathTests {
    static let widths = [1, 2, 3, 5, 16, 17, 33, 130]
    /// Filter of row y: each type alone (0...4), then all five in turn (5).
    static let filterPlans: [Int] = Array(0...5)

    static func filter(plan: Int, row: Int) -> UInt8 { UInt8(plan < 5 ? plan : row % 5) }

    /// The fast path called directly; nil when it declined. Declining an RGBA file must leave
    /// `out` as it was (RGB is inflated in place, so the decoder's libpng pass rewrites it).
    static func fastDecode(_ file: [UInt8], width: Int, height: Int, mode: imago_png_fast_mode) -> [UInt8]? {
        let canary: UInt8 = 0xA5
        var out = [UInt8](repeating: canary, count: width * height * 4)
        let result = file.withUnsafeBufferPointer { data in
            out.withUnsafeMutableBufferPointer { out in
                imago_png_fast_decode(data.baseAddress, data.count, out.baseAddress, width * 4, mode, nil)
            }
        }
        if result == IMAGO_PNG_FAST_DECODED { return out }
        if file.count > 25 && file[25] == 6 { #expect(out.allSatisfy { $0 == canary }, "a declined decode wrote into out") }
        return nil
    }

    @Test(arguments: [3, 4], widths)
    func everyFilterGivesTheSourcePixels(channels: Int, width: Int) throws {
        let height = 9
        let fixture = PNGFilteredFixture(width: width, height: height, channels: channels, seed: UInt32(width * channels))
        for plan in Self.filterPlans {
            let file = fixture.png { Self.filter(plan: plan, row: $0) }
            for mode in [IMAGO_PNG_FAST_SIMD, IMAGO_PNG_FAST_SCALAR] {
                let pixels = Self.fastDecode(file, width: width, height: height, mode: mode)
                #expect(pixels == fixture.expectedRGBA, "fast path, plan \(plan), mode \(mode.rawValue)")
            }
            let decoded = try ImageDecoder.decode(file)
            #expect(decoded.pixels.packedBytes() == fixture.expectedRGBA, "decoder, plan \(plan)")
        }
    }

    @Test func offDeclinesEverything() {
        let fixture = PNGFilteredFixture(width: 4, height: 4, channels: 4)
        #expect(Self.fastDecode(fixture.png { _ in 4 }, width: 4, height: 4, mode: IMAGO_PNG_FAST_OFF) == nil)
    }

    /// A file the fast path must hand to libpng, and what the decoder must then say.
    struct Declined: CustomTestStringConvertible, Sendable {
        let name: String
        let file: @Sendable (PNGFilteredFixture) -> [UInt8]
        /// The decoder's outcome: an error kind and a word of libpng's message, or nil for success.
        let error: (kind: String, message: String)?
        var testDescription: String { name }

        /// The decoder's outcome checked against `error`: libpng's error kind and message, or a
        /// success that libpng's tRNS handling (alpha) gave.
        func expectLibpngsAnswer(_ result: Result<DecodedImage, DecodeError>) {
            switch (result, error) {
            case (.success(let image), nil):
                #expect(image.metadata.hasAlpha, "libpng's tRNS handling, not the fast path's")
            case (.failure(let error), let expected?):
                #expect(error.kind == expected.kind, "\(error)")
                if case .corrupt(_, let message) = error { #expect(message.contains(expected.message), "\(message)") }
            default:
                Issue.record("decoder gave \(result), expected \(String(describing: error))")
            }
        }
    }

    static let declined: [Declined] = [
        Declined(name: "filter type 5", file: { $0.png { $0 == 3 ? 5 : 1 } }, error: ("corrupt", "bad adaptive filter value")),
        Declined(name: "IDAT CRC flipped", file: { fixture in
            var file = fixture.png { _ in 4 }
            file[file.count - 13] ^= 0x01   // the IDAT CRC's last byte (IEND is the last 12 bytes)
            return file
        }, error: ("corrupt", "CRC error")),
        Declined(name: "stored block length broken", file: { fixture in
            var file = fixture.png { _ in 2 }
            file[8 + 25 + 8 + 2 + 3] ^= 0xFF   // NLEN of the first stored block no longer ~LEN
            let idat = 8 + 25
            let length = Int(file[idat]) << 24 | Int(file[idat + 1]) << 16 | Int(file[idat + 2]) << 8 | Int(file[idat + 3])
            let crc = PNGFilteredFixture.bigEndian(ByteSurgery.crc32(file[(idat + 4)..<(idat + 8 + length)]))
            file.replaceSubrange((idat + 8 + length)..<(idat + 12 + length), with: crc)
            return file
        }, error: ("corrupt", "stored")),
        Declined(name: "no IEND", file: { Array($0.png { _ in 1 }.dropLast(12)) }, error: ("truncated", "")),
        Declined(name: "tRNS on RGB", file: { $0.png(filterForRow: { _ in 4 }, extraChunks: [("tRNS", [0, 1, 0, 2, 0, 3])]) },
                 error: nil),
    ]

    @Test(arguments: declined)
    func declinesAndTheDecoderGivesLibpngsAnswer(_ testCase: Declined) {
        let fixture = PNGFilteredFixture(width: 7, height: 6, channels: 3)
        let file = testCase.file(fixture)
        #expect(Self.fastDecode(file, width: 7, height: 6, mode: IMAGO_PNG_FAST_SIMD) == nil)
        let result = Result { () throws(DecodeError) in try ImageDecoder.decode(file) }
        testCase.expectLibpngsAnswer(result)
    }

    @Test(arguments: [3, 4])
    func fullSizeEstimateDeclaresTheFastPathsWorkingBytes(channels: Int) throws {
        let fixture = PNGFilteredFixture(width: 300, height: 200, channels: channels)
        let file = fixture.png { _ in 4 }
        let full = try ImageDecoder.memoryEstimate(Data(file))
        let reduced = try ImageDecoder.memoryEstimate(Data(file), options: DecodeOptions(maxPixelSize: 100))
        let declared = imago_png_fast_working_bytes(300, 200, Int32(channels), file.count)
        // The joined IDATs always; the inflated rows only for RGBA (RGB inflates into the output).
        let rows = channels == 4 ? (1 + 300 * 4) * 200 : 0
        #expect(declared >= UInt64(rows + file.count + 300 * 4))
        #expect(declared < UInt64(rows + file.count + 300 * 4 + 2 * 901 + 64))
        #expect(full.workingBytes - reduced.workingBytes == Int(declared))
    }
}
