import Foundation

/// Serves the shipped images from ImagoConformance's resources: the file's bytes (unpacked when
/// packed) and, for a PNG, the fingerprint its pixels have, from Images/manifest.json (the suite
/// cannot decode a PNG itself without a zlib).
package enum ShippedImageStore {
    /// What the manifest says of one file.
    package struct Entry: Codable, Sendable, Equatable {
        package var width: Int
        package var height: Int
        /// SHA-256 of the packed RGBA rows (ImageFingerprint.digest); nil for a JPEG, whose
        /// pixels depend on the decoder.
        package var digest: String?

        package init(width: Int, height: Int, digest: String?) {
            self.width = width
            self.height = height
            self.digest = digest
        }
    }

    /// Images/manifest.json: every shipped file by name.
    package struct Manifest: Codable, Sendable, Equatable {
        package var images: [String: Entry]
        package init(images: [String: Entry]) { self.images = images }
    }

    package static let manifestName = "manifest.json"

    /// Read once per process: every check's images come from it.
    private static let manifest: Result<Manifest, ShippedImageError> = {
        do throws(ShippedImageError) {
            let data = try read(manifestName)
            do { return .success(try JSONDecoder().decode(Manifest.self, from: Data(data))) } catch {
                throw ShippedImageError.corrupt(manifestName, reason: "\(error)")
            }
        } catch { return .failure(error) }
    }()

    /// The image's bytes as a loader must be served them, and its manifest entry.
    package static func load(_ image: ShippedImage) throws(ShippedImageError) -> (bytes: [UInt8], entry: Entry) {
        guard let entry = try manifest.get().images[image.fileName] else { throw .notShipped(image.fileName) }
        let stored = try read(image.fileName)
        let bytes = image.isPacked ? try PackedBytes.unpack(stored, name: image.fileName) : stored
        return (bytes, entry)
    }

    /// The image's bytes and the fingerprint a correct decode gives (it must have a digest).
    package static func exact(_ image: ShippedImage) throws(ShippedImageError) -> (bytes: [UInt8], fingerprint: ImageFingerprint) {
        let (bytes, entry) = try load(image)
        guard let digest = entry.digest else { throw .corrupt(image.fileName, reason: "the manifest gives no pixel digest") }
        return (bytes, ImageFingerprint(width: entry.width, height: entry.height, digest: digest))
    }

    /// The Images directory in ImagoConformance's resource bundle; nil when the bundle lacks it.
    package static var directory: URL? { Bundle.module.url(forResource: "Images", withExtension: nil) }

    private static func read(_ name: String) throws(ShippedImageError) -> [UInt8] {
        guard let url = directory?.appendingPathComponent(name) else { throw .missing(name) }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw .missing(name) }
        return [UInt8](data)
    }
}
