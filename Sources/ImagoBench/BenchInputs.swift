import Foundation
import Imago

/// Photo-like bench inputs, generated on demand and cached outside git as
/// `<kind>-<megapixels>mp.<ext>` (for example `jpeg-progressive-12mp.jpg`).
public enum BenchInputs {
    /// The format flavours the decode benchmark covers, in report order.
    public static let kinds: [(kind: String, fileExtension: String)] = [
        ("jpeg-baseline", "jpg"), ("jpeg-progressive", "jpg"), ("png-rgb8", "png"),
        ("webp-lossy", "webp"), ("webp-lossless", "webp"),
    ]

    public static func prepare(megapixels: [Double], directory: String, log: (String) -> Void) throws -> [BenchInput] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var inputs: [BenchInput] = []
        for mp in megapixels {
            for (kind, ext) in kinds {
                let path = "\(directory)/\(kind)-\(Self.label(mp))mp.\(ext)"
                if !FileManager.default.fileExists(atPath: path) {
                    throw BenchError("missing bench input \(path)")
                }
                let metadata = try ImageDecoder.metadata(Data(contentsOf: URL(fileURLWithPath: path)))
                inputs.append(BenchInput(kind: kind, path: path, width: metadata.width, height: metadata.height))
            }
        }
        return inputs
    }

    static func label(_ megapixels: Double) -> String {
        megapixels == megapixels.rounded() ? String(Int(megapixels)) : String(megapixels)
    }
}
