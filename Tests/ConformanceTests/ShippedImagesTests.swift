import Foundation
@testable import ImagoConformance
import ImagoCorpus
import Testing

// The conformance suite serves committed files instead of encoding at run time. These tests
// re-encode every one of them with the real encoders and require the committed bytes and
// fingerprints to be exactly what the encoders give today, so the shipped data cannot drift from
// its generator (after a generator change: `make conformance-images`).
extension ConformanceImageRenderer: ShippedImageRendering {}
extension ConformanceImageRenderer.Rendered: ShippedImageRendered {}

@Suite("Shipped conformance images")
struct ShippedImagesTests {
    @Test("every shipped image is byte-identical to the encoders' output", arguments: ShippedImage.all)
    func shippedBytesMatchTheEncoders(image: ShippedImage) throws {
        let rendered = try image.render(with: ConformanceImageRenderer())
        let (shipped, entry) = try ShippedImageStore.load(image)
        #expect(shipped == rendered.bytes, "\(image): \(shipped.count) B shipped, \(rendered.bytes.count) B encoded")
        #expect(entry == image.manifestEntry(rendered.rgba))
    }

    @Test("the Images directory holds exactly the listed images and the manifest")
    func nothingUnlisted() throws {
        let directory = try #require(ShippedImageStore.directory)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(names == Set(ShippedImage.all.map(\.fileName) + [ShippedImageStore.manifestName]))
    }

    @Test("the checks' series run 0..<64 and a later index is a typed error")
    func seriesBounds() throws {
        let images = try ConformanceImages()
        #expect(try images.series(63).fingerprint.width == 40)
        #expect(throws: ShippedImageError.notShipped("series(64)")) { try images.series(64) }
        #expect(throws: ShippedImageError.self) { try images.series(-1) }
    }

    @Test("packing gives back the same bytes, overlapping copies included")
    func packRoundTrip() throws {
        var bytes: [UInt8] = Array("IHDR".utf8)
        for row in 0..<300 { bytes += (0..<517).map { UInt8(truncatingIfNeeded: $0 * 7 + row / 40) } }
        bytes += [UInt8](repeating: 9, count: 10_000) + [1, 2, 3]
        let packed = PackedBytes.pack(bytes)
        #expect(packed.count < bytes.count / 10)
        #expect(try PackedBytes.unpack(packed, name: "test") == bytes)
    }

    @Test("a damaged packed file is a typed error, never a crash")
    func damagedPackedFile() {
        let packed = PackedBytes.pack([UInt8](repeating: 5, count: 4096))
        #expect(throws: ShippedImageError.self) { try PackedBytes.unpack(Array(packed.dropLast()), name: "cut") }
        #expect(throws: ShippedImageError.self) { try PackedBytes.unpack([0x58] + packed.dropFirst(), name: "magic") }
        // A copy reaching before the start of the output.
        #expect(throws: ShippedImageError.self) { try PackedBytes.unpack(Array("IMLZ1".utf8) + [8, 9, 3], name: "copy") }
    }
}
