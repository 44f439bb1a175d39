import Foundation
import Imago
import ImagoCorpus

/// Photo-like bench inputs, generated on demand by the corpus generator (deterministic, seeded)
/// and cached outside git as `<kind>-<megapixels>mp.<ext>`, e.g. `jpeg-progressive-12mp.jpg`.
public enum BenchInputs {
    /// Every format at every size in `megapixels`.
    public static func prepare(megapixels: [Double], directory: String, log: (String) -> Void) throws -> [BenchInput] {
        try megapixels.flatMap { mp in
            try LargeInputs.Format.allCases.map { try prepare($0, megapixels: mp, directory: directory, log: log) }
        }
    }

    /// One format at one size, generated if it is not cached yet.
    public static func prepare(_ format: LargeInputs.Format, megapixels: Double, directory: String,
                               log: (String) -> Void) throws -> BenchInput {
        let folder = URL(fileURLWithPath: directory)
        let name = LargeInputs.fileName(format: format, megapixels: megapixels)
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
            log("generating \(name)")
        }
        let url = try LargeInputs.make(format: format, megapixels: megapixels, to: folder)
        let metadata = try ImageDecoder.metadata(Data(contentsOf: url))
        return BenchInput(kind: format.rawValue, path: url.path, width: metadata.width, height: metadata.height,
                          nominalMegapixels: megapixels)
    }
}
