import Foundation
import Imago
import ImagoCorpus

/// Photo-like bench inputs, generated on demand by the corpus generator (deterministic, seeded)
/// and cached outside git as `<kind>-<megapixels>mp.<ext>`, e.g. `jpeg-progressive-12mp.jpg`.
public enum BenchInputs {
    public static func prepare(megapixels: [Double], directory: String, log: (String) -> Void) throws -> [BenchInput] {
        let folder = URL(fileURLWithPath: directory)
        var inputs: [BenchInput] = []
        for mp in megapixels {
            for format in LargeInputs.Format.allCases {
                let name = LargeInputs.fileName(format: format, megapixels: mp)
                if !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
                    log("generating \(name)")
                }
                let url = try LargeInputs.make(format: format, megapixels: mp, to: folder)
                let metadata = try ImageDecoder.metadata(Data(contentsOf: url))
                inputs.append(BenchInput(kind: format.rawValue, path: url.path, width: metadata.width, height: metadata.height))
            }
        }
        return inputs
    }
}
