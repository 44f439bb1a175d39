import Foundation
@testable import Imago
import XCTest

/// The push decoders against the pull decoders: however the bytes are cut, the same pixels (or
/// the same kind of error); a body that stops short is truncated, never a crash or a made-up
/// image; previews only for progressive images, in order of increasing detail.
final class StreamingDecoderTests: XCTestCase {
    private static func files(_ folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestCorpus.url(folder).path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(folder)/\($0)" }
    }

    private static let valid = files("png") + files("jpeg") + files("webp")

    private func pieces(_ bytes: [UInt8], _ size: Int) -> [Data] {
        stride(from: 0, to: bytes.count, by: size).map { Data(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    private func streamed(_ bytes: [UInt8], _ size: Int, _ options: DecodeOptions) -> Result<DecodedImage, DecodeError> {
        Result { () throws(DecodeError) in try ImageDecoder.decodeStreaming(pieces(bytes, size), options: options) }
    }

    private func pulled(_ bytes: [UInt8], _ options: DecodeOptions) -> Result<DecodedImage, DecodeError> {
        Result { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: options) }
    }

    private func assertSame(_ a: Result<DecodedImage, DecodeError>, _ b: Result<DecodedImage, DecodeError>,
                            _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        switch (a, b) {
        case (.success(let x), .success(let y)):
            XCTAssertEqual(x.pixels.width, y.pixels.width, message, file: file, line: line)
            XCTAssertEqual(x.pixels.height, y.pixels.height, message, file: file, line: line)
            XCTAssertEqual(x.metadata, y.metadata, message, file: file, line: line)
            XCTAssertTrue(x.pixels.packedBytes() == y.pixels.packedBytes(), "\(message): pixels differ", file: file, line: line)
        case (.failure(let x), .failure(let y)):
            XCTAssertEqual(x.kind, y.kind, "\(message): \(x) against \(y)", file: file, line: line)
        default:
            XCTFail("\(message): streamed \(a) against pulled \(b)", file: file, line: line)
        }
    }

    func testEveryValidImageDecodesTheSameInAnyPieces() {
        for name in Self.valid {
            let bytes = TestCorpus.bytes(name)
            for options in [DecodeOptions(), DecodeOptions(maxPixelSize: 37), DecodeOptions(applyOrientation: true)] {
                let reference = pulled(bytes, options)
                guard case .success = reference else { return XCTFail("\(name) does not decode: \(reference)") }
                for size in [1, 7, 4096, bytes.count] where size > 1 || bytes.count < 40_000 {
                    assertSame(streamed(bytes, size, options), reference, "\(name) in pieces of \(size), \(options)")
                }
            }
        }
    }

    func testInvalidInputsFailAsThePullDecoderDoes() {
        for name in Self.files("invalid") {
            let bytes = TestCorpus.bytes(name)
            let options = DecodeOptions()
            for size in [1, 4096] {
                assertSame(streamed(bytes, size, options), pulled(bytes, options), "\(name) in pieces of \(size)")
            }
        }
    }

    func testEveryPrefixEndsTruncatedOrEmpty() {
        for name in ["png/rgb-8-interlaced.png", "png/palette-4.png", "jpeg/progressive-420-q90.jpg",
                     "jpeg/baseline-420-q90.jpg", "webp/lossless-opaque.webp"] {
            let bytes = TestCorpus.bytes(name)
            let step = max(1, bytes.count / 97)
            for cut in stride(from: 0, to: bytes.count - 1, by: step) {
                switch streamed(Array(bytes.prefix(cut)), 501, DecodeOptions()) {
                case .success: XCTFail("\(name) cut at \(cut) of \(bytes.count) decoded")
                case .failure(let error):
                    let expected: Set<String> = cut == 0 ? ["empty"] : ["truncated", "unsupportedFormat", "corrupt"]
                    XCTAssertTrue(expected.contains(error.kind), "\(name) cut at \(cut): \(error)")
                }
            }
        }
    }

    func testTrailingBytesAfterTheImageAreIgnored() {
        for name in ["png/rgba-8.png", "jpeg/baseline-420-q90.jpg", "webp/lossless-opaque.webp"] {
            let bytes = TestCorpus.bytes(name)
            assertSame(streamed(bytes + Array(repeating: 0x5A, count: 5000), 333, DecodeOptions()),
                       pulled(bytes, DecodeOptions()), "\(name) with trailing bytes")
        }
    }

    func testJunkBeforeTheEndMarkerIsToleratedWithTheCleanFilesPixels() {
        // libjpeg warns "N extraneous bytes before marker 0xd9" and decodes on; after a complete
        // scan (the common case in real camera and webcam files) no pixel depends on the junk.
        for name in ["jpeg/baseline-420-q90.jpg", "jpeg/progressive-420-q90.jpg", "jpeg/restart-420-q90.jpg"] {
            let clean = TestCorpus.bytes(name)
            var bytes = clean
            XCTAssertEqual(Array(bytes.suffix(2)), [0xFF, 0xD9], name)
            bytes.insert(contentsOf: Array(repeating: 0x55, count: 16), at: bytes.count - 2)
            let reference = pulled(clean, DecodeOptions())
            assertSame(pulled(bytes, DecodeOptions()), reference, "\(name) with junk before EOI")
            for size in [1, 333, bytes.count] {
                assertSame(streamed(bytes, size, DecodeOptions()), reference, "\(name) with junk before EOI in pieces of \(size)")
            }
        }
    }

    func testAWebPChunkRunningPastTheRIFFSizeIsRefusedByBothDecoders() {
        // A metadata chunk after the bitstream whose size runs past the RIFF size: libwebp's
        // incremental decoder would decide by how the bytes arrive, so both decoders refuse it.
        let image = TestCorpus.bytes("webp/lossless-opaque.webp")
        func riff(_ chunks: [UInt8]) -> [UInt8] {
            let size = UInt32(image.count - 8 + chunks.count)
            return Array("RIFF".utf8) + withUnsafeBytes(of: size.littleEndian, Array.init) + image[8...] + chunks
        }
        let overlong = riff(Array("EXIF".utf8) + [40, 0, 0, 0] + Array(repeating: 7, count: 20))
        for result in [pulled(overlong, DecodeOptions())] + [1, 97, overlong.count].map({ streamed(overlong, $0, DecodeOptions()) }) {
            guard case .failure(.corrupt(.webp, let message)) = result else { return XCTFail("overlong EXIF chunk: \(result)") }
            XCTAssertTrue(message.contains("'EXIF'") && message.contains("runs past the RIFF size"), message)
        }
        // The last chunk's pad byte may be left out; bytes after the RIFF size are not the image's.
        let unpadded = riff(Array("EXIF".utf8) + [3, 0, 0, 0, 1, 2, 3]) + Array(repeating: 0xEE, count: 300)
        let reference = pulled(image, DecodeOptions())
        for size in [1, 97, unpadded.count] {
            assertSame(streamed(unpadded, size, DecodeOptions()), reference, "unpadded last chunk in pieces of \(size)")
        }
        assertSame(pulled(unpadded, DecodeOptions()), reference, "unpadded last chunk, one-shot")
    }

    func testTheChunkedFuzzersFindingsAreSettled() throws {
        // Reports/fuzz-findings: the inputs the chunked fuzzers stopped on, and how each is settled.
        let folder = TestCorpus.directory.deletingLastPathComponent().appendingPathComponent("Reports/fuzz-findings")
        // Scans that lost sync, with junk before the next marker: both decode (libjpeg-turbo
        // warns and goes on), at the same size; their pixels depend on libjpeg-turbo's buffering.
        for name in ["jpeg-ycck-garbage-before-eoi.jpg", "jpeg-extraneous-bytes-1.jpg", "jpeg-extraneous-bytes-2.jpg"] {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            guard case .success(let reference) = pulled(bytes, DecodeOptions()) else { return XCTFail("\(name) does not decode") }
            for size in [1, 97, 4096] {
                guard case .success(let image) = streamed(bytes, size, DecodeOptions()) else { return XCTFail("\(name) in pieces of \(size)") }
                XCTAssertEqual([image.pixels.width, image.pixels.height], [reference.pixels.width, reference.pixels.height], name)
            }
        }
        // Pixels libjpeg-turbo itself does not pin down (its two Huffman paths disagree): the
        // decodes still agree on success and size.
        let sensitive = [UInt8](try Data(contentsOf: folder.appendingPathComponent("jpeg-path-sensitive-no-warning.jpg")))
        for size in [1, 97, 1700] {
            guard case .success(let a) = streamed(sensitive, size, DecodeOptions()), case .success(let b) = pulled(sensitive, DecodeOptions())
            else { return XCTFail("the path-sensitive JPEG does not decode") }
            XCTAssertEqual([a.pixels.width, a.pixels.height], [b.pixels.width, b.pixels.height])
        }
        // Damaged data either decodes or is refused as corrupt, never another error, in any pieces.
        for name in ["jpeg-path-sensitive-extraneous.jpg", "jpeg-damaged-oneshot-refuses.jpg", "jpeg-bad-huffman-code-path.jpg"] {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            for result in [pulled(bytes, DecodeOptions())] + [1, 97, 2000, 4096].map({ streamed(bytes, $0, DecodeOptions()) }) {
                if case .failure(let error) = result { XCTAssertEqual(error.kind, "corrupt", "\(name): \(error)") }
            }
        }
        for name in ["webp-lossless-stream-bitstream-error.webp", "webp-lossy-alpha-stream-truncated.webp",
                     "webp-riff-short-oneshot-truncated.webp", "webp-header-refused-on-prefix.webp",
                     "webp-lossy-append-piece-sensitive.webp"] {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            for size in [1, 7, 30, 97, 4096, bytes.count] {
                assertSame(streamed(bytes, size, DecodeOptions()), pulled(bytes, DecodeOptions()), "\(name) in pieces of \(size)")
            }
        }
    }

    func testProgressiveImagesOfferPreviewsOfIncreasingDetail() throws {
        for name in ["jpeg/progressive-420-q90.jpg", "png/rgba-8-interlaced.png"] {
            let bytes = TestCorpus.bytes(name)
            var details: [Int] = []
            var sizes: [PixelSize] = []
            let image = try ImageDecoder.decodeStreaming(pieces(bytes, 512), previewMaxPixelSize: 50) { pixels, detail in
                details.append(detail)
                sizes.append(PixelSize(width: pixels.width, height: pixels.height))
            }
            XCTAssertFalse(details.isEmpty, "\(name): no preview")
            XCTAssertEqual(details, details.sorted(), name)
            XCTAssertEqual(Set(details).count, details.count, "\(name): a detail twice")
            for size in sizes { XCTAssertLessThanOrEqual(max(size.width, size.height), 50, name) }
            guard case .success(let reference) = pulled(bytes, DecodeOptions()) else { return XCTFail(name) }
            XCTAssertTrue(image.pixels.packedBytes() == reference.pixels.packedBytes(), "\(name): previews changed the result")
        }
        for name in ["jpeg/baseline-420-q90.jpg", "png/rgba-8.png", "webp/lossless-opaque.webp"] {
            var previews = 0
            _ = try ImageDecoder.decodeStreaming(pieces(TestCorpus.bytes(name), 512)) { _, _ in previews += 1 }
            XCTAssertEqual(previews, 0, "\(name) is not progressive")
        }
    }

    func testACancelledDecodeStops() {
        let bytes = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")
        let decoder = StreamingDecoder()
        let half = Data(bytes.prefix(bytes.count / 2))
        let first = half.withUnsafeBytes { raw in
            Result { () throws(DecodeError) in try decoder.pushAll(raw, previews: false) { _ throws(DecodeError) in } }
        }
        XCTAssertEqual(try first.get(), .needsInput)
        decoder.cancellation.cancel()
        let rest = Data(bytes.suffix(from: bytes.count / 2))
        let second = rest.withUnsafeBytes { raw in
            Result { () throws(DecodeError) in try decoder.pushAll(raw, previews: false) { _ throws(DecodeError) in } }
        }
        XCTAssertEqual(second.failureKind, "cancelled")
    }
}

private extension Result where Failure == DecodeError {
    var failureKind: String? { if case .failure(let error) = self { error.kind } else { nil } }
}
