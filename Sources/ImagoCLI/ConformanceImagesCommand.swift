import ArgumentParser
import Foundation
import ImagoConformance
import ImagoCorpus

/// `imago conformance-images [DIR]`: writes the images the conformance suite serves, and their
/// manifest, with the real encoders. ImagoConformance ships these files instead of encoding at
/// run time, so it links no codec library. Deterministic: a second run leaves `git status` clean,
/// and ConformanceTests fails when the committed files differ from what this writes.
struct ConformanceImagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance-images",
        abstract: "Regenerate the conformance suite's shipped images (Sources/ImagoConformance/Images).")

    @Argument(help: "Directory to write the images and manifest.json into.")
    var directory: String = "Sources/ImagoConformance/Images"

    func run() throws {
        let root = URL(fileURLWithPath: directory)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Files of images no longer listed would ship unused: the directory holds exactly `all`.
        let wanted = Set(ShippedImage.all.map(\.fileName) + [ShippedImageStore.manifestName])
        for stale in try FileManager.default.contentsOfDirectory(atPath: root.path) where !wanted.contains(stale) {
            try FileManager.default.removeItem(at: root.appendingPathComponent(stale))
        }
        var manifest = ShippedImageStore.Manifest(images: [:])
        var total = 0
        for image in ShippedImage.all {
            let rendered = try image.render(with: ConformanceImageRenderer())
            let file = image.shippedFile(rendered.bytes)
            try Data(file).write(to: root.appendingPathComponent(image.fileName))
            manifest.images[image.fileName] = image.manifestEntry(rendered.rgba)
            total += file.count
            print("\(image.fileName)  \(rendered.bytes.count) B (\(file.count) B shipped)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try (encoder.encode(manifest) + Data("\n".utf8)).write(to: root.appendingPathComponent(ShippedImageStore.manifestName))
        print("wrote \(ShippedImage.all.count) images, \(total) bytes, and \(ShippedImageStore.manifestName) to \(root.path)")
    }
}

// The renderer (ImagoCorpus, with the C encoders) serves the suite's catalog (ImagoConformance,
// which cannot import ImagoCorpus); ConformanceTests declares the same conformance.
extension ConformanceImageRenderer: ShippedImageRendering {}
extension ConformanceImageRenderer.Rendered: ShippedImageRendered {}
