import Foundation

/// Photo-like bench inputs, generated on demand and cached outside git.
public enum BenchInputs {
    public static func prepare(megapixels: [Double], directory: String, log: (String) -> Void) throws -> [BenchInput] {
        throw BenchError("bench inputs need the corpus generator")
    }
}
