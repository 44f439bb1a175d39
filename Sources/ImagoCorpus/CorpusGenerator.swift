import Foundation

/// Writes the whole corpus (valid images, invalid files, manifest.json) into a directory.
///
/// Deterministic: every byte is a function of the catalog, so running it twice gives identical
/// files and a clean `git status`. Files no longer in the catalog are not deleted (the
/// directory might hold something else); the manifest is the list that counts.
public struct CorpusGenerator: Sendable {
    /// Where the corpus goes; subdirectories png/, jpeg/, webp/ and invalid/ are created.
    public let directory: URL

    /// One written file, for progress output.
    public struct WrittenFile: Sendable {
        public let entry: ManifestEntry
        public let byteCount: Int
    }

    public init(directory: URL) {
        self.directory = directory
    }

    /// Encodes everything in memory (valid entries first: the invalid files are cut from them).
    public static func build() throws -> (manifest: Manifest, files: [String: [UInt8]]) {
        var entries: [ManifestEntry] = []
        var files: [String: [UInt8]] = [:]
        for spec in CorpusCatalog.entries {
            let rendered = try CorpusCatalog.render(spec)
            let sha = rendered.reference.sha256Hex
            let expect: Expectation = spec.minPSNR.map { .psnr($0, reference: sha) } ?? .exact(sha)
            entries.append(ManifestEntry(file: spec.file, format: spec.format, width: rendered.reference.width,
                                         height: rendered.reference.height, expect: expect, source: spec.source,
                                         metadata: rendered.metadata))
            files[spec.file] = rendered.bytes
        }
        for item in try InvalidCorpus.items(base: files) {
            entries.append(item.entry)
            files[item.entry.file] = item.bytes
        }
        return (Manifest(entries: entries), files)
    }

    /// Generates and writes every file plus manifest.json, reporting each file as written.
    @discardableResult
    public func generate(progress: (WrittenFile) -> Void = { _ in }) throws -> Manifest {
        let (manifest, files) = try CorpusGenerator.build()
        let manager = FileManager.default
        for entry in manifest.entries {
            guard let bytes = files[entry.file] else { continue }
            let url = directory.appendingPathComponent(entry.file)
            try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url, options: .atomic)
            progress(WrittenFile(entry: entry, byteCount: bytes.count))
        }
        try manifest.encoded().write(to: directory.appendingPathComponent("manifest.json"), options: .atomic)
        return manifest
    }
}
