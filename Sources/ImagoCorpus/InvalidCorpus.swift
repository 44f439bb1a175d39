/// Files every decoder must reject, each with the one error kind an honest decoder reports.
///
/// Damage is placed by parsing the base file (ByteSurgery), so a "truncated in the scan" file
/// really ends inside the scan and a "corrupt zlib" PNG really has valid CRCs.
enum InvalidCorpus {
    struct Item {
        let entry: ManifestEntry
        let bytes: [UInt8]
    }

    /// Builds the invalid set from the already-encoded valid files (keyed by corpus path).
    static func items(base files: [String: [UInt8]]) throws -> [Item] {
        func base(_ file: String) throws -> [UInt8] {
            guard let bytes = files[file] else { throw CorpusError(description: "invalid corpus: base \(file) missing") }
            return bytes
        }
        var items: [Item] = []
        items.append(entry("empty.bin", "unknown", (0, 0), .empty, [], base: nil, mutation: "empty", offset: nil, note: "Zero bytes of input."))
        items.append(entry("text.txt", "unknown", (0, 0), .unsupportedFormat, Array("This is a plain text file, not an image.\n".utf8),
            base: nil, mutation: "text", offset: nil, note: "No image signature at all."))
        let gif: [UInt8] = [
            0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
            0xFF, 0xFF, 0xFF, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44,
            0x01, 0x00, 0x3B,
        ]
        items.append(entry("gif89a-1x1.gif", "gif", (0, 0), .unsupportedFormat, gif, base: nil, mutation: "gifHeader",
            offset: nil, note: "A valid 1x1 GIF: a recognized image format this library does not decode."))

        items += try pngItems(try base("png/rgb-8-160x120.png"), base: "png/rgb-8-160x120.png")
        items += try jpegItems(try base("jpeg/baseline-420-q90.jpg"), base: "jpeg/baseline-420-q90.jpg",
                               progressive: try base("jpeg/progressive-420-q90.jpg"))
        items += try webpItems(try base("webp/lossy-q80.webp"), base: "webp/lossy-q80.webp",
                               lossless: try base("webp/lossless.webp"))
        return items
    }

    /// A cut `percent` of the way through [start, end).
    static func cut(_ percent: Int, _ start: Int, _ end: Int) -> Int {
        start + (end - start) * percent / 100
    }

    static func entry(_ name: String, _ format: String, _ size: (Int, Int), _ error: ExpectedError,
                      _ bytes: [UInt8], base: String?, mutation: String, offset: Int?, note: String) -> Item {
        Item(entry: ManifestEntry(file: "invalid/\(name)", format: format, width: size.0, height: size.1,
                                  expect: .error(error),
                                  invalid: InvalidRecipe(base: base, mutation: mutation, offset: offset, note: note)),
             bytes: bytes)
    }
}
