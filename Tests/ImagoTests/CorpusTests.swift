import Foundation
import ImagoCorpus
import XCTest
@testable import Imago

/// Every committed corpus file against its manifest entry. The expectations come from the
/// generator's own source pixels, never from this decoder.
final class CorpusTests: XCTestCase {
    static let corpus = TestCorpus.directory

    static let manifest: Manifest = {
        do { return try Manifest.load(from: corpus.appendingPathComponent("manifest.json")) }
        catch { fatalError("cannot read Corpus/manifest.json: \(error)") }
    }()

    private var valid: [ManifestEntry] { Self.manifest.entries.filter { $0.expect.kind != .error } }
    private var invalid: [ManifestEntry] { Self.manifest.entries.filter { $0.expect.kind == .error } }
    private func path(_ entry: ManifestEntry) -> String { Self.corpus.appendingPathComponent(entry.file).path }

    private func rgba(_ pixels: PixelBuffer) -> RGBAImage {
        RGBAImage(width: pixels.width, height: pixels.height, pixels: pixels.packedBytes())
    }

    func testTheCorpusCoversEveryFormat() {
        XCTAssertGreaterThan(valid.count, 60)
        XCTAssertGreaterThan(invalid.count, 10)
        for format in ["png", "jpeg", "webp"] {
            XCTAssertTrue(valid.contains { $0.format == format }, format)
        }
    }

    func testEveryValidFileDecodesToItsExpectation() throws {
        for entry in valid {
            let image = try ImageDecoder.decode(contentsOfFile: path(entry))
            XCTAssertEqual(image.metadata.format.rawValue, entry.format, entry.file)
            XCTAssertEqual(image.pixels.width, entry.width, entry.file)
            XCTAssertEqual(image.pixels.height, entry.height, entry.file)
            if let expected = entry.metadata {
                let m = image.metadata
                XCTAssertEqual(m.bitDepth, expected.bitDepth, "\(entry.file) bitDepth")
                XCTAssertEqual(m.colorModel.rawValue, expected.colorModel, "\(entry.file) colorModel")
                XCTAssertEqual(m.hasAlpha, expected.hasAlpha, "\(entry.file) hasAlpha")
                XCTAssertEqual(m.isProgressive, expected.progressive, "\(entry.file) progressive")
                XCTAssertEqual(m.isArithmeticCoded, expected.arithmetic, "\(entry.file) arithmetic")
                XCTAssertEqual(m.isLossless, expected.lossless, "\(entry.file) lossless")
                XCTAssertEqual(m.orientation, expected.orientation, "\(entry.file) orientation")
                XCTAssertEqual(m.isAnimated, expected.animated, "\(entry.file) animated")
                XCTAssertEqual(m.frameCount, expected.frameCount, "\(entry.file) frameCount")
            }
            switch entry.expect.kind {
            case .exact:
                XCTAssertEqual(rgba(image.pixels).sha256Hex, entry.expect.rgbaSHA256, "\(entry.file): pixels differ from the generator's")
            case .psnr:
                let reference = try CorpusCatalog.reference(for: entry, orientationApplied: false)
                XCTAssertEqual(reference.sha256Hex, entry.expect.referenceSHA256, "\(entry.file): reference regenerated")
                let psnr = try XCTUnwrap(rgba(image.pixels).psnr(of: reference)).combined
                XCTAssertGreaterThanOrEqual(psnr, try XCTUnwrap(entry.expect.minPSNR), "\(entry.file): \(psnr) dB")
            case .error:
                break
            }
        }
    }

    func testOrientationIsAppliedOnlyWhenAsked() throws {
        let oriented = valid.filter { ($0.metadata?.orientation ?? 1) != 1 }
        XCTAssertEqual(Set(oriented.compactMap { $0.metadata?.orientation }), Set(2...8))
        for entry in oriented {
            let image = try ImageDecoder.decode(contentsOfFile: path(entry), options: DecodeOptions(applyOrientation: true))
            XCTAssertTrue(image.metadata.orientationApplied)
            let reference = try CorpusCatalog.reference(for: entry, orientationApplied: true)
            XCTAssertEqual(image.pixels.width, reference.width, entry.file)
            XCTAssertEqual(image.pixels.height, reference.height, entry.file)
            let psnr = try XCTUnwrap(rgba(image.pixels).psnr(of: reference)).combined
            XCTAssertGreaterThanOrEqual(psnr, try XCTUnwrap(entry.expect.minPSNR), "\(entry.file): \(psnr) dB")
        }
    }

    func testEveryInvalidFileFailsWithItsExpectedKind() throws {
        for entry in invalid {
            let expected = try XCTUnwrap(entry.expect.error).rawValue
            XCTAssertThrowsError(try ImageDecoder.decode(contentsOfFile: path(entry)), entry.file) { error in
                XCTAssertEqual((error as? DecodeError)?.kind, expected, "\(entry.file): \(error)")
            }
            let bytes = try Data(contentsOf: Self.corpus.appendingPathComponent(entry.file))
            XCTAssertThrowsError(try ImageDecoder.decode(bytes), entry.file) { error in
                XCTAssertEqual((error as? DecodeError)?.kind, expected, "\(entry.file) from memory: \(error)")
            }
        }
    }

    func testMemoryAndFileInputsGiveIdenticalPixels() throws {
        for entry in valid {
            let bytes = try Data(contentsOf: Self.corpus.appendingPathComponent(entry.file))
            XCTAssertEqual(try ImageDecoder.decode(bytes).pixels, try ImageDecoder.decode(contentsOfFile: path(entry)).pixels, entry.file)
        }
    }

    /// Every prefix of a valid file (1/16 ... 15/16 of it) lacks the image's end: each must fail
    /// with a typed error, never crash and never succeed with invented rows.
    func testEveryTruncationFails() throws {
        for entry in valid {
            let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(entry.file)))
            for sixteenth in 1..<16 {
                let prefix = Array(bytes.prefix(bytes.count * sixteenth / 16))
                XCTAssertThrowsError(try ImageDecoder.decode(prefix), "\(entry.file) cut at \(sixteenth)/16") { error in
                    XCTAssertNotEqual((error as? DecodeError)?.kind, "cancelled")
                }
            }
        }
    }

    /// Seeded random byte flips: the decoder either succeeds or throws a DecodeError.
    func testRandomByteFlipsNeverCrash() throws {
        var random = SeededGenerator(seed: 20261122)
        var outcomes = (decoded: 0, failed: 0)
        for entry in valid {
            let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(entry.file)))
            for _ in 0..<8 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let index = Int.random(in: 0..<mutated.count, using: &random)
                    mutated[index] ^= UInt8.random(in: 1...255, using: &random)
                }
                do throws(DecodeError) {
                    _ = try ImageDecoder.decode(mutated)
                    outcomes.decoded += 1
                } catch {
                    outcomes.failed += 1
                }
            }
        }
        XCTAssertEqual(outcomes.decoded + outcomes.failed, valid.count * 8)
        XCTAssertGreaterThan(outcomes.failed, 0, "some flips must hit checked structure")
    }
}
