import Foundation

/// The committed corpus, located from this file so tests run from any working directory.
enum TestCorpus {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus")

    static func url(_ file: String) -> URL { directory.appendingPathComponent(file) }

    /// The bytes of a corpus file; a missing file is a broken checkout, so it stops the run.
    static func bytes(_ file: String) -> [UInt8] {
        do { return [UInt8](try Data(contentsOf: url(file))) }
        catch { fatalError("cannot read Corpus/\(file): \(error)") }
    }
}
