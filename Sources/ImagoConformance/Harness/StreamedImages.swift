/// The images the decode-while-streaming rules serve (FETCH-3, FETCH-4, PREVIEW-1): a progressive
/// JPEG and an Adam7-interlaced PNG with several scans or passes, their baseline and
/// non-interlaced counterparts, and a PNG whose decoded size is large.
public struct StreamedImage: Sendable {
    /// The encoded file.
    public let bytes: [UInt8]
    /// The Content-Type it is served with: `image/jpeg` or `image/png`.
    public let contentType: String
    /// Columns, in pixels.
    public let width: Int
    /// Rows, in pixels.
    public let height: Int
    /// The pixels a correct decode gives, when they are exact (PNG); nil for a JPEG, whose
    /// pixels depend on the decoder (FETCH-3 compares them between strategies instead).
    public let fingerprint: ImageFingerprint?
    /// Where each scan (JPEG: its SOS marker) or pass (interlaced PNG: the first byte of its
    /// rows in the stored zlib stream) begins in `bytes`, in order; empty for a baseline or
    /// non-interlaced image. A body held a little after `scanStarts[k]` has scans 1..k complete
    /// and the next one begun, which a decoder sees as the end of scan k.
    public let scanStarts: [Int]

    /// A progressive JPEG (`progressive` true: libjpeg's standard script, 10 scans for colour)
    /// or a baseline one, of a procedural photo; only the shipped ones exist (ShippedImage.all).
    static func jpeg(seed: UInt64, width: Int, height: Int, progressive: Bool) throws(ShippedImageError) -> StreamedImage {
        let image = ShippedImage.jpeg(seed: seed, width: width, height: height, progressive: progressive)
        let (bytes, entry) = try ShippedImageStore.load(image)
        guard entry.width == width, entry.height == height, bytes.count > 1 else {
            throw .corrupt(image.fileName, reason: "the manifest says \(entry.width)x\(entry.height)")
        }
        // In entropy-coded data 0xFF is always followed by 0x00 or a restart marker, so every
        // FF DA is a real start of scan.
        var starts: [Int] = []
        for index in 0..<(bytes.count - 1) where bytes[index] == 0xFF && bytes[index + 1] == 0xDA { starts.append(index) }
        return StreamedImage(bytes: bytes, contentType: "image/jpeg", width: width, height: height, fingerprint: nil,
                             scanStarts: progressive ? starts : [])
    }

    /// An 8-bit RGBA PNG of a procedural photo, Adam7-interlaced (7 passes) or not; only the
    /// shipped ones exist. Its image data is stored uncompressed (zlib level 0), so where each
    /// pass begins in the file is known exactly (`scanStarts`): a compressed stream would put
    /// pass boundaries where the compressor's blocks happen to end.
    static func png(seed: UInt64, width: Int, height: Int, interlaced: Bool) throws(ShippedImageError) -> StreamedImage {
        let (bytes, fingerprint) = try ShippedImageStore.exact(
            .storedPNG(seed: seed, width: width, height: height, interlaced: interlaced))
        return StreamedImage(bytes: bytes, contentType: "image/png", width: width, height: height,
                             fingerprint: fingerprint,
                             scanStarts: interlaced ? adam7PassStarts(bytes, width: width, height: height) : [])
    }

    /// A PNG that is large decoded (`width` × `height` × 4 bytes) and about as large encoded
    /// (flat bands, stored uncompressed): what FETCH-4 cancels mid-stream while the decoder holds
    /// its output. Only the shipped size exists.
    static func largePNG(width: Int, height: Int) throws(ShippedImageError) -> StreamedImage {
        let (bytes, fingerprint) = try ShippedImageStore.exact(.largePNG(width: width, height: height))
        return StreamedImage(bytes: bytes, contentType: "image/png", width: width, height: height,
                             fingerprint: fingerprint, scanStarts: [])
    }

    /// `width` × `height` × 4: the decoded size.
    public var decodedByteCount: Int { width * height * 4 }

    /// The body offset a little past the start of scan (or pass) `index` (0-based): scans
    /// before it are complete and the decoder has seen the next one begin. For a PNG that is a
    /// whole row of the pass and more (a row decoder may learn that a pass ended only from the
    /// next pass's first row); for a JPEG, the next scan's header and some of its data.
    func offset(afterStartOfScan index: Int) -> Int {
        let margin = contentType == "image/png" ? 1 + width * 4 + 64 : 64
        return min(scanStarts[index] + margin, bytes.count - 1)
    }

    /// Where each Adam7 pass's first row begins in a PNG whose image data is stored (zlib level
    /// 0): the raw (filtered) offset of each pass mapped through the IDAT chunks and the stored
    /// blocks' 5-byte headers.
    private static func adam7PassStarts(_ png: [UInt8], width: Int, height: Int) -> [Int] {
        // Pass origins and steps (x0, y0, dx, dy).
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var rawStarts: [Int] = []
        var raw = 0
        for (x0, y0, dx, dy) in passes {
            let columns = width > x0 ? (width - x0 + dx - 1) / dx : 0
            let rows = height > y0 ? (height - y0 + dy - 1) / dy : 0
            guard columns > 0 && rows > 0 else { continue }   // an empty pass has no rows
            rawStarts.append(raw)
            raw += rows * (1 + columns * 4)
        }
        // The zlib stream's bytes, each with its offset in the file.
        var streamOffsets: [Int] = []
        var position = 8
        while position + 8 <= png.count {
            let length = png[position..<(position + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[(position + 4)..<(position + 8)], as: UTF8.self)
            if type == "IDAT" { streamOffsets += Array((position + 8)..<(position + 8 + length)) }
            position += 12 + length
        }
        // Skip the 2-byte zlib header, then walk the stored blocks: a header byte (BFINAL, and
        // BTYPE 00), LEN and NLEN (little-endian), LEN bytes. A block of another type ends the
        // walk (the passes it holds are then not located).
        var fileOffsetOfRaw: [Int: Int] = [:]
        var stream = 2
        var rawPosition = 0
        while stream + 5 <= streamOffsets.count {
            let header = png[streamOffsets[stream]]
            guard header >> 1 & 0b11 == 0 else { break }
            let blockLength = Int(png[streamOffsets[stream + 1]]) | Int(png[streamOffsets[stream + 2]]) << 8
            stream += 5
            for start in rawStarts where start >= rawPosition && start < rawPosition + blockLength
                && stream + start - rawPosition < streamOffsets.count {
                fileOffsetOfRaw[start] = streamOffsets[stream + start - rawPosition]
            }
            stream += blockLength
            rawPosition += blockLength
            if header & 1 == 1 { break }
        }
        return rawStarts.compactMap { fileOffsetOfRaw[$0] }
    }
}
