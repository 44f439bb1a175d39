import XCTest
@testable import Imago

final class FormatSniffingTests: XCTestCase {
    func testRecognisesSupportedMagic() {
        XCTAssertEqual(SniffedFormat(prefix: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]), .supported(.png))
        XCTAssertEqual(SniffedFormat(prefix: [0xFF, 0xD8, 0xFF, 0xE0]), .supported(.jpeg))
        XCTAssertEqual(SniffedFormat(prefix: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)), .supported(.webp))
    }

    func testNamesUnsupportedFormats() {
        XCTAssertEqual(SniffedFormat(prefix: Array("GIF89a".utf8)), .unsupported("gif"))
        XCTAssertEqual(SniffedFormat(prefix: Array("BM\u{0}\u{0}".utf8)), .unsupported("bmp"))
        XCTAssertEqual(SniffedFormat(prefix: Array("\u{0}\u{0}\u{0}\u{1C}ftypavif".utf8)), .unsupported("heif/avif"))
        XCTAssertEqual(SniffedFormat(prefix: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)), .unknown)
        XCTAssertEqual(SniffedFormat(prefix: [0xFF, 0xD8]), .unknown, "a JPEG needs three magic bytes")
    }

    func testDecodeRejectsEmptyAndUnknownInput() {
        XCTAssertThrowsError(try ImageDecoder.decode([UInt8]())) { XCTAssertEqual($0 as? DecodeError, .empty) }
        XCTAssertThrowsError(try ImageDecoder.decode(Array("hello, world".utf8))) {
            XCTAssertEqual($0 as? DecodeError, .unsupportedFormat("unknown"))
        }
        XCTAssertThrowsError(try ImageDecoder.decode(Array("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8))) {
            XCTAssertEqual(($0 as? DecodeError)?.kind, "unsupportedFormat")
        }
    }

    func testMissingFileIsUnreadable() {
        XCTAssertThrowsError(try ImageDecoder.decode(contentsOfFile: "/nonexistent/imago.png")) {
            XCTAssertEqual(($0 as? DecodeError)?.kind, "unreadable")
        }
        XCTAssertThrowsError(try ImageDecoder.decode(contentsOfFile: NSTemporaryDirectory())) {
            XCTAssertEqual(($0 as? DecodeError)?.kind, "unreadable", "a directory is not an image file")
        }
    }
}
