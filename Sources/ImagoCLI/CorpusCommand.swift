import ArgumentParser
import Foundation
import ImagoCorpus

/// `imago corpus [DIR]`: regenerates the committed test corpus. Deterministic, so a second run
/// leaves `git status` clean; that is how a change to the generator shows up in review.
struct CorpusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corpus",
        abstract: "Regenerate the deterministic test corpus and its manifest.json.")

    /// Output directory. Default: Corpus (relative to the current directory).
    @Argument(help: "Directory to write the corpus into.")
    var directory: String = "Corpus"

    /// Also write the large benchmark inputs of this many megapixels into DIR/../.bench-inputs.
    /// Default: none.
    @Option(name: .customLong("bench-megapixels"),
            help: "Also generate the large benchmark inputs (all formats) of this many megapixels into .bench-inputs/.")
    var benchMegapixels: [Double] = []

    /// Also write each valid entry's reference as raw RGBA next to it (FILE.rgba, stored
    /// orientation, width * 4 bytes per row; git-ignored), for checking with other tools.
    /// Default: off.
    @Flag(name: .customLong("write-references"), help: "Also write FILE.rgba (raw reference RGBA) for each valid entry.")
    var writeReferences = false

    func run() throws {
        let root = URL(fileURLWithPath: directory)
        var totals: [String: (count: Int, bytes: Int)] = [:]
        try CorpusGenerator(directory: root).generate { written in
            let entry = written.entry
            let expectation: String
            switch entry.expect.kind {
            case .exact: expectation = "exact"
            case .psnr: expectation = "psnr >= \(entry.expect.minPSNR ?? 0)"
            case .error: expectation = "error \(entry.expect.error?.rawValue ?? "?")"
            }
            print("\(entry.file)  \(entry.width)x\(entry.height)  \(written.byteCount) B  \(expectation)")
            let group = entry.file.split(separator: "/").first.map(String.init) ?? "?"
            let previous = totals[group] ?? (0, 0)
            totals[group] = (previous.count + 1, previous.bytes + written.byteCount)
        }
        let all = totals.values.reduce((0, 0)) { ($0.0 + $1.count, $0.1 + $1.bytes) }
        let groups = totals.keys.sorted().map { "\($0) \(totals[$0]?.count ?? 0)" }.joined(separator: ", ")
        print("wrote \(all.0) files (\(groups)), \(all.1) bytes, and \(root.appendingPathComponent("manifest.json").path)")

        if writeReferences {
            let manifest = try Manifest.load(from: root.appendingPathComponent("manifest.json"))
            for entry in manifest.entries where entry.source != nil {
                let reference = try CorpusCatalog.reference(for: entry)
                try Data(reference.pixels).write(to: root.appendingPathComponent(entry.file + ".rgba"))
            }
            print("wrote reference .rgba files")
        }

        let benchDirectory = root.deletingLastPathComponent().appendingPathComponent(".bench-inputs")
        for megapixels in benchMegapixels {
            for format in LargeInputs.Format.allCases {
                let url = try LargeInputs.make(format: format, megapixels: megapixels, to: benchDirectory)
                print("bench input \(url.path)")
            }
        }
    }
}
