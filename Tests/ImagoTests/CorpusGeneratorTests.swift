import Foundation
import ImagoCorpus
import XCTest

/// The corpus generator on its own (no decoder involved): determinism, reference sizes and
/// hashes against the committed manifest, the PSNR definition, orientation and the 16 -> 8 bit
/// reduction. Everything here is small, so the whole class runs in about a second.
final class CorpusGeneratorTests: XCTestCase {
    private static let corpusDirectory = TestCorpus.directory

    /// Skips the 1600x1200 entries: they add seconds in debug builds and test nothing new here.
    private static func isSmall(_ width: Int, _ height: Int) -> Bool { width * height <= 200_000 }

    func testProceduralImageIsDeterministic() {
        let a = ProceduralImage(seed: 42, width: 37, height: 23, options: .init(alpha: .radial)).samples16()
        let b = ProceduralImage(seed: 42, width: 37, height: 23, options: .init(alpha: .radial)).samples16()
        let c = ProceduralImage(seed: 43, width: 37, height: 23, options: .init(alpha: .radial)).samples16()
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        // 16-bit data is real 16-bit data: some low bytes differ from the high bytes.
        XCTAssertTrue(a.values.contains { $0 >> 8 != $0 & 0xFF })
        // The radial pattern has fully transparent, fully opaque and partial pixels.
        let alpha = stride(from: 3, to: a.values.count, by: 4).map { a.values[$0] }
        XCTAssertTrue(alpha.contains(0))
        XCTAssertTrue(alpha.contains(65535))
        XCTAssertTrue(alpha.contains { $0 != 0 && $0 != 65535 })
    }

    func testEncodingIsDeterministic() throws {
        let picks = CorpusCatalog.entries.filter {
            ["png/rgba-16-interlaced.png", "jpeg/orientation-6.jpg", "webp/lossless.webp",
             "webp/animated-lossy-q80.webp"].contains($0.file)
        }
        XCTAssertEqual(picks.count, 4)
        for spec in picks {
            XCTAssertEqual(try CorpusCatalog.encodedFile(for: spec), try CorpusCatalog.encodedFile(for: spec), spec.file)
        }
    }

    func testEveryManifestFileExists() throws {
        // Bytes are not compared: zlib/libjpeg/libwebp versions elsewhere may encode
        // differently. The reference hashes below are what must not drift.
        let manifest = try Manifest.load(from: Self.corpusDirectory.appendingPathComponent("manifest.json"))
        XCTAssertEqual(manifest.entries.filter { $0.expect.kind != .error }.map(\.file).sorted(),
                       CorpusCatalog.entries.map(\.file).sorted())
        for entry in manifest.entries {
            let path = Self.corpusDirectory.appendingPathComponent(entry.file).path
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), entry.file)
        }
    }

    func testReferencesHaveDeclaredSizesAndHashes() throws {
        let manifest = try Manifest.load(from: Self.corpusDirectory.appendingPathComponent("manifest.json"))
        var checked = 0
        for entry in manifest.entries where entry.expect.kind != .error && Self.isSmall(entry.width, entry.height) {
            let reference = try CorpusCatalog.reference(for: entry)
            XCTAssertEqual(reference.width, entry.width, entry.file)
            XCTAssertEqual(reference.height, entry.height, entry.file)
            XCTAssertEqual(reference.sha256Hex, entry.expect.rgbaSHA256 ?? entry.expect.referenceSHA256, entry.file)
            let displayed = try CorpusCatalog.reference(for: entry, orientationApplied: true)
            XCTAssertEqual(displayed.width, entry.source?.width, entry.file)
            XCTAssertEqual(displayed.height, entry.source?.height, entry.file)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 70)
        XCTAssertThrowsError(try CorpusCatalog.reference(
            for: XCTUnwrap(manifest.entries.first { $0.expect.kind == .error })))
    }

    func testPSNR() throws {
        let image = RGBAImage(width: 8, height: 8, pixels: (0..<256).map { UInt8(($0 * 37) & 0xFF) | 1 })
        let same = try XCTUnwrap(image.psnr(of: image))
        XCTAssertEqual(same.rgb, .infinity)
        XCTAssertEqual(same.combined, .infinity)
        var perturbed = image
        perturbed.pixels[0] &+= 3
        perturbed.pixels[7] &+= 5 // an alpha byte
        let different = try XCTUnwrap(image.psnr(of: perturbed))
        XCTAssertTrue(different.rgb.isFinite && different.rgb > 30)
        XCTAssertTrue(try XCTUnwrap(different.alpha).isFinite)
        XCTAssertNil(image.psnr(of: RGBAImage(width: 4, height: 4)))
        // Colour under fully transparent pixels does not count.
        let clear = RGBAImage(width: 1, height: 1, pixels: [10, 20, 30, 0])
        XCTAssertEqual(clear.psnr(of: RGBAImage(width: 1, height: 1, pixels: [99, 99, 99, 0]))?.combined, .infinity)
    }

    func testOrientationRoundTripsAndMovesCorners() {
        let w = 5, h = 3
        let image = RGBAImage(width: w, height: h, pixels: (0..<(w * h * 4)).map { UInt8($0) })
        for orientation in 1...8 {
            let displayed = image.oriented(orientation)
            XCTAssertEqual(displayed.width, orientation >= 5 ? h : w)
            XCTAssertEqual(displayed.unoriented(orientation), image, "orientation \(orientation)")
            XCTAssertEqual(image.unoriented(orientation).oriented(orientation), image, "orientation \(orientation)")
        }
        // Orientation 6 (rotate 90 clockwise to display): stored top-left lands top-right.
        let rotated = image.oriented(6)
        XCTAssertEqual(Array(rotated.pixels[((rotated.width - 1) * 4)..<(rotated.width * 4)]), [0, 1, 2, 3])
        // Orientation 8: stored top-left lands bottom-left.
        let counter = image.oriented(8)
        XCTAssertEqual(counter.pixels[((counter.height - 1) * counter.width) * 4], 0)
    }

    func testSixteenToEightBitIsRoundOfDivisionBy257() {
        let cases: [(UInt16, UInt8)] = [(0, 0), (128, 0), (129, 1), (257, 1), (385, 1), (386, 2),
                                        (32_896, 128), (65_406, 254), (65_407, 255), (65_535, 255)]
        for (value, expected) in cases {
            XCTAssertEqual(SampleConversion.to8(value), expected, "\(value)")
            XCTAssertEqual(Int(SampleConversion.to8(value)), Int((Double(value) / 257).rounded()), "\(value)")
        }
        XCTAssertEqual(SampleConversion.expand(1, depth: 1), 255)
        XCTAssertEqual(SampleConversion.expand(2, depth: 2), 170)
        XCTAssertEqual(SampleConversion.expand(7, depth: 4), 119)
    }
}
