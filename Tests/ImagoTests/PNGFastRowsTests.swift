import CImagoCodecs
import Foundation
import Testing
@testable import Imago

/// The PNG fast path row by row (ISA-L, issue 27): exact pixels for every filter type, RGB and
/// RGBA, odd widths, called directly and through the decoder from a file; a reduced decode from
/// a file equal to the same decode from memory; what it must hand to libpng, and libpng's answer
/// then; and the memory estimate declaring its few rows and ISA-L's state. Byte-for-byte
/// equality with libpng itself at reduced sizes is `make png-fast-check`'s (it can switch the
/// fast path off per decode; these tests share one process environment).
@Suite struct PNGFastRowsTests {
    /// The row path called directly on a memory input; nil when it declined.
    static func rowsDecode(_ file: [UInt8], width: Int, height: Int, outWidth: Int? = nil, outHeight: Int? = nil,
                           mode: imago_png_fast_mode) -> [UInt8]? {
        let (w, h) = (outWidth ?? width, outHeight ?? height)
        var out = [UInt8](repeating: 0xA5, count: w * h * 4)
        let result = file.withUnsafeBufferPointer { data in
            out.withUnsafeMutableBufferPointer { out in
                var input = imago_input(data: data.baseAddress, size: data.count, fd: -1)
                return imago_png_fast_rows_decode(&input, 0, out.baseAddress, w * 4, UInt32(w), UInt32(h), mode, nil)
            }
        }
        return result == IMAGO_PNG_FAST_DECODED ? out : nil
    }

    /// `body` given a path holding `file`; the file is removed afterwards.
    static func withFile<T>(_ file: [UInt8], _ body: (String) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imago-png-rows-\(UUID()).png")
        try Data(file).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url.path)
    }

    @Test(arguments: [3, 4], PNGFastPathTests.widths)
    func everyFilterGivesTheSourcePixels(channels: Int, width: Int) throws {
        let height = 9
        let fixture = PNGFilteredFixture(width: width, height: height, channels: channels, seed: UInt32(width * channels + 1))
        for plan in PNGFastPathTests.filterPlans {
            let file = fixture.png { PNGFastPathTests.filter(plan: plan, row: $0) }
            for mode in [IMAGO_PNG_FAST_SIMD, IMAGO_PNG_FAST_SCALAR] {
                let pixels = Self.rowsDecode(file, width: width, height: height, mode: mode)
                #expect(pixels == fixture.expectedRGBA, "row path, plan \(plan), mode \(mode.rawValue)")
            }
            let decoded = try Self.withFile(file) { try ImageDecoder.decode(contentsOfFile: $0) }
            #expect(decoded.pixels.packedBytes() == fixture.expectedRGBA, "decoder from a file, plan \(plan)")
        }
    }

    @Test(arguments: [3, 4])
    func reducedFromAFileEqualsReducedFromMemory(channels: Int) throws {
        let fixture = PNGFilteredFixture(width: 130, height: 70, channels: channels)
        let file = fixture.png { $0 % 5 == 0 ? 4 : UInt8($0 % 5) }
        let options = DecodeOptions(maxPixelSize: 40)
        let fromMemory = try ImageDecoder.decode(file, options: options)
        let fromFile = try Self.withFile(file) { try ImageDecoder.decode(contentsOfFile: $0, options: options) }
        #expect(fromMemory.pixels.width == 40)
        #expect(fromFile.pixels.packedBytes() == fromMemory.pixels.packedBytes())
        let direct = Self.rowsDecode(file, width: 130, height: 70, outWidth: fromMemory.pixels.width,
                                     outHeight: fromMemory.pixels.height, mode: IMAGO_PNG_FAST_SCALAR)
        #expect(direct == fromMemory.pixels.packedBytes(), "the decoder's reduced pixels are the row path's")
    }

    @Test(arguments: PNGFastPathTests.declined)
    func declinesAndTheDecoderGivesLibpngsAnswerFromAFile(_ testCase: PNGFastPathTests.Declined) throws {
        let fixture = PNGFilteredFixture(width: 7, height: 6, channels: 3)
        let file = testCase.file(fixture)
        #expect(Self.rowsDecode(file, width: 7, height: 6, mode: IMAGO_PNG_FAST_SIMD) == nil)
        let result = try Self.withFile(file) { path in
            Result { () throws(DecodeError) in try ImageDecoder.decode(contentsOfFile: path, options: DecodeOptions(maxPixelSize: 3)) }
        }
        testCase.expectLibpngsAnswer(result)
    }

    @Test func estimateDeclaresTheRowPathsWorkingBytes() throws {
        let fixture = PNGFilteredFixture(width: 300, height: 200, channels: 3)
        let file = fixture.png { _ in 4 }
        let options = DecodeOptions(maxPixelSize: 100)
        let fromMemory = try ImageDecoder.memoryEstimate(Data(file), options: options)
        let fromFile = try Self.withFile(file) { try ImageDecoder.memoryEstimate(contentsOfFile: $0, options: options) }
        let memoryRows = Int(imago_png_fast_rows_working_bytes(300, 0))
        let fileRows = Int(imago_png_fast_rows_working_bytes(300, 1))
        // ISA-L's state (tens of KiB) and four rows; a file adds its 64 KiB read buffer.
        #expect(memoryRows > 32 * 1024 && memoryRows < 256 * 1024)
        #expect(fileRows - memoryRows == 64 * 1024)
        #expect(fromFile.workingBytes - fromMemory.workingBytes == fileRows - memoryRows)
        #expect(fromMemory.workingBytes >= memoryRows + 300 * DecodeMemoryEstimate.rowBytesPerColumn)
    }
}
