import CImagoCodecs
import Foundation
import ImagoCorpus
import Synchronization
import XCTest
@testable import Imago

/// Cancellation, limits, concurrency and downsampling quality, on images made by the corpus
/// encoders (independent of the decoder under test).
final class DecoderBehaviourTests: XCTestCase {
    /// A flat-ish 8000x5000 (40 MP) baseline JPEG: cheap to make, long enough to decode that a
    /// cancel lands mid-way.
    private static let largeJPEG: [UInt8] = {
        let (w, h) = (8000, 5000)
        var rgb = [UInt8](repeating: 0, count: w * 3)
        for x in 0..<w { rgb[x * 3] = UInt8(x & 0xFF); rgb[x * 3 + 1] = UInt8((x >> 3) & 0xFF); rgb[x * 3 + 2] = 90 }
        // Row copies, not Array.joined: this runs in debug builds, where 120M appends take ~30 s.
        let pixels = [UInt8](unsafeUninitializedCapacity: w * 3 * h) { buffer, count in
            rgb.withUnsafeBufferPointer { row in
                for y in 0..<h { (buffer.baseAddress! + y * w * 3).update(from: row.baseAddress!, count: w * 3) }
            }
            count = w * 3 * h
        }
        return try! Encoders.jpeg(width: w, height: h, input: .rgb, pixels: pixels, stride: w * 3, quality: 80)
    }()

    private func photo(width: Int, height: Int, seed: UInt64 = 11) -> [UInt8] {
        ProceduralImage(seed: seed, width: width, height: height).samples8(channels: 3)
    }

    func testCancellationStopsALargeDecodeMidway() throws {
        let cancellation = DecodeCancellation()
        let outcome = Mutex<Result<DecodedImage, DecodeError>?>(nil)
        let finished = expectation(description: "decode returned")
        let data = Self.largeJPEG
        Thread.detachNewThread {
            let result = Result { () throws(DecodeError) in try ImageDecoder.decode(data, cancellation: cancellation) }
            outcome.withLock { $0 = result }
            finished.fulfill()
        }
        // Gate: wait (bounded) until the codec has produced rows, then cancel.
        let deadline = ContinuousClock.now + .seconds(30)
        while cancellation.rowsDecoded == 0 && ContinuousClock.now < deadline { sched_yield() }
        XCTAssertGreaterThan(cancellation.rowsDecoded, 0, "the decode started")
        cancellation.cancel()
        wait(for: [finished], timeout: 30)
        let result = try XCTUnwrap(outcome.withLock { $0 })
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? DecodeError, .cancelled) }
        XCTAssertLessThan(cancellation.rowsDecoded, 5000, "stopped before the last row")
    }

    func testTaskCancellationReachesTheDecoder() async {
        let data = Data(Self.largeJPEG)
        let task = Task { () async throws(DecodeError) -> DecodedImage in
            try await ImageDecoder.decode(data)
        }
        task.cancel()
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? DecodeError, .cancelled) }
    }

    func testPixelLimitIsCheckedFromTheHeader() throws {
        let jpeg = try Encoders.jpeg(width: 100, height: 80, input: .rgb, pixels: photo(width: 100, height: 80),
                                     stride: 300, quality: 90)
        XCTAssertThrowsError(try ImageDecoder.decode(jpeg, options: DecodeOptions(pixelLimit: 7999))) {
            XCTAssertEqual($0 as? DecodeError, .tooLarge(width: 100, height: 80, limit: 7999))
        }
        XCTAssertNoThrow(try ImageDecoder.decode(jpeg, options: DecodeOptions(pixelLimit: 8000)))
    }

    func testConcurrentDecodesAgree() async throws {
        let jpeg = try Encoders.jpeg(width: 640, height: 480, input: .rgb, pixels: photo(width: 640, height: 480),
                                     stride: 640 * 3, quality: 85, progressive: true)
        let reference = try ImageDecoder.decode(jpeg).pixels
        let results = try await withThrowingTaskGroup(of: PixelBuffer.self) { group in
            for _ in 0..<16 { group.addTask { try ImageDecoder.decode(jpeg).pixels } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(results.count, 16)
        for pixels in results { XCTAssertEqual(pixels, reference) }
    }

    /// Downsampled decode against full decode + the same area-average resize.
    private func downsampled(_ bytes: [UInt8], maxPixelSize: Int) throws -> (small: RGBAImage, reference: RGBAImage) {
        let small = try ImageDecoder.decode(bytes, options: DecodeOptions(maxPixelSize: maxPixelSize)).pixels
        let full = try ImageDecoder.decode(bytes).pixels
        var resized = [UInt8](repeating: 0, count: small.width * small.height * 4)
        var error = imago_error()
        let status = full.withUnsafeBytes { raw in
            imago_resize_rgba(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(full.width), UInt32(full.height),
                              full.bytesPerRow, &resized, UInt32(small.width), UInt32(small.height), small.width * 4, &error)
        }
        XCTAssertEqual(status, IMAGO_OK)
        return (RGBAImage(width: small.width, height: small.height, pixels: small.packedBytes()),
                RGBAImage(width: small.width, height: small.height, pixels: resized))
    }

    func testDownsampledDecodesMatchFullDecodePlusResize() throws {
        let (w, h) = (1203, 797)
        let rgb = photo(width: w, height: h)
        let jpeg = try Encoders.jpeg(width: w, height: h, input: .rgb, pixels: rgb, stride: w * 3, quality: 92)
        let png = try Encoders.png(width: w, height: h, colorType: .rgb, bitDepth: 8, interlaced: false,
                                   samples: rgb, stride: w * 3, compressionLevel: 1)
        let interlaced = try Encoders.png(width: w, height: h, colorType: .rgb, bitDepth: 8, interlaced: true,
                                          samples: rgb, stride: w * 3, compressionLevel: 1)
        let rgba = ProceduralImage(seed: 11, width: w, height: h).samples8(channels: 4)
        let webp = try Encoders.webp(width: w, height: h, rgba: rgba, stride: w * 4, lossless: false, quality: 90, keepAlpha: false)

        for (name, bytes, floor) in [("png", png, Double.infinity), ("png-adam7", interlaced, .infinity),
                                     ("jpeg", jpeg, 34), ("webp", webp, 30)] {
            for size in [600, 300, 97] {
                let (small, reference) = try downsampled(bytes, maxPixelSize: size)
                XCTAssertEqual(max(small.width, small.height), size, name)
                let psnr = try XCTUnwrap(small.psnr(of: reference)).combined
                XCTAssertGreaterThanOrEqual(psnr, floor, "\(name) at \(size): \(psnr) dB")
            }
        }
    }

    func testJPEGUsesDCTScalingForThumbnails() throws {
        // 1/8 DCT scaling then an exact resize: the output size is exact, whatever the ratio.
        let jpeg = Self.largeJPEG
        let thumb = try ImageDecoder.decode(jpeg, options: DecodeOptions(maxPixelSize: 256))
        XCTAssertEqual(thumb.pixels.width, 256)
        XCTAssertEqual(thumb.pixels.height, 160)
        XCTAssertEqual(thumb.metadata.width, 8000, "metadata keeps the source size")
    }
}
