/// The per-format invalid files: truncations at the header, just after it and inside the
/// compressed data, and one precise corruption each.
extension InvalidCorpus {
    static func pngItems(_ png: [UInt8], base: String) throws -> [Item] {
        let chunks = ByteSurgery.pngChunks(png)
        let idats = chunks.filter { $0.type == "IDAT" }
        guard let ihdr = chunks.first, ihdr.type == "IHDR", let first = idats.first else {
            throw CorpusError(description: "invalid corpus: \(base) has no IHDR/IDAT")
        }
        let size = (ByteSurgery.bigEndian32(png, at: 16), ByteSurgery.bigEndian32(png, at: 20))
        var items = [
            entry("png-truncated-8-signature-only.png", "png", (0, 0), .truncated, Array(png[0..<8]), base: base,
                  mutation: "truncate", offset: 8, note: "Only the signature: the data ends before IHDR."),
            entry("png-truncated-20-in-ihdr.png", "png", (0, 0), .truncated, Array(png[0..<20]), base: base,
                  mutation: "truncate", offset: 20, note: "Ends inside IHDR (the height is missing)."),
            entry("png-truncated-33-after-ihdr.png", "png", size, .truncated, Array(png[0..<ihdr.crcOffset + 4]),
                  base: base, mutation: "truncate", offset: ihdr.crcOffset + 4,
                  note: "Header complete and valid, no image data follows."),
        ]
        // Cuts through the concatenated IDAT payload, kept clear of the final Adler-32 so the
        // pixel data itself is incomplete.
        let payload = idats.flatMap { Array($0.dataStart..<$0.dataEnd) }
        for percent in [10, 50, 90] {
            let at = payload[min(payload.count * percent / 100, payload.count - 5)]
            items.append(entry("png-truncated-idat-\(percent)pct.png", "png", size, .truncated, Array(png[0..<at]),
                               base: base, mutation: "truncate", offset: at,
                               note: "Ends \(percent)% of the way through the IDAT data."))
        }
        var badIHDR = png
        badIHDR[ihdr.crcOffset] ^= 0xFF
        items.append(entry("png-bad-crc-ihdr.png", "png", size, .corrupt, badIHDR, base: base, mutation: "badCRC",
                           offset: ihdr.crcOffset, note: "IHDR CRC does not match: libpng rejects critical chunks with bad CRCs."))
        if idats.count > 1 {
            var badIDAT = png
            badIDAT[first.crcOffset] ^= 0xFF
            items.append(entry("png-bad-crc-idat.png", "png", size, .corrupt, badIDAT, base: base, mutation: "badCRC",
                               offset: first.crcOffset,
                               note: "First of \(idats.count) IDAT chunks has a bad CRC, found when moving to the second."))
        }
        // Deflate block type 3 is reserved: inflate fails on the first block. CRC recomputed so
        // zlib, not the CRC check, is what fails.
        var zlib = png
        zlib[first.dataStart + 2] |= 0x06
        ByteSurgery.fixPNGCRC(&zlib, chunk: first)
        items.append(entry("png-corrupt-zlib.png", "png", size, .corrupt, zlib, base: base, mutation: "corruptZlib",
                           offset: first.dataStart + 2,
                           note: "First deflate block has the reserved type 3; every CRC is valid."))
        items.append(entry("png-too-large-100000x100000.png", "png", (100_000, 100_000), .tooLarge, hugePNG(),
                           base: nil, mutation: "hugeDimensions", offset: nil,
                           note: "Valid IHDR claiming 10^10 RGB pixels (30 GB decoded) with a tiny IDAT: must be refused from the header."))
        return items
    }

    /// Signature, IHDR 100000x100000 8-bit RGB, an IDAT holding an empty zlib stream, IEND.
    static func hugePNG() -> [UInt8] {
        var ihdr: [UInt8] = []
        ByteSurgery.appendBigEndian32(100_000, to: &ihdr)
        ByteSurgery.appendBigEndian32(100_000, to: &ihdr)
        ihdr += [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + ByteSurgery.pngChunk("IHDR", ihdr)
            + ByteSurgery.pngChunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
            + ByteSurgery.pngChunk("IEND", [])
    }

    static func jpegItems(_ jpeg: [UInt8], base: String, progressive: [UInt8]) throws -> [Item] {
        guard let (scanStart, eoi) = ByteSurgery.jpegScanBounds(jpeg),
              let (progressiveStart, progressiveEnd) = ByteSurgery.jpegScanBounds(progressive) else {
            throw CorpusError(description: "invalid corpus: cannot find the JPEG scans")
        }
        let size = (101, 77)
        var items = [
            entry("jpeg-truncated-100-in-tables.jpg", "jpeg", (0, 0), .truncated, Array(jpeg[0..<100]), base: base,
                  mutation: "truncate", offset: 100, note: "Ends inside the quantization tables, before SOF."),
            entry("jpeg-truncated-after-sos.jpg", "jpeg", size, .truncated, Array(jpeg[0..<scanStart]), base: base,
                  mutation: "truncate", offset: scanStart,
                  note: "Every header segment complete, no entropy-coded data."),
        ]
        for percent in [10, 50, 90] {
            let at = cut(percent, scanStart, eoi)
            items.append(entry("jpeg-truncated-scan-\(percent)pct.jpg", "jpeg", size, .truncated, Array(jpeg[0..<at]),
                               base: base, mutation: "truncate", offset: at,
                               note: "Ends \(percent)% of the way through the scan data, without EOI."))
        }
        let progressiveCut = cut(50, progressiveStart, progressiveEnd)
        items.append(entry("jpeg-progressive-truncated-50pct.jpg", "jpeg", size, .truncated,
                           Array(progressive[0..<progressiveCut]), base: "jpeg/progressive-420-q90.jpg",
                           mutation: "truncate", offset: progressiveCut,
                           note: "Progressive file ending half-way between its first scan and EOI."))
        // 32 stuffed 0xFF bytes (FF 00) are 256 one-bits: no JPEG Huffman code is all ones, so
        // libjpeg hits JWRN_HUFF_BAD_CODE; the span holds no marker (FF is always followed by 00).
        var corrupt = jpeg
        let at = cut(40, scanStart, eoi)
        for i in 0..<64 { corrupt[at + i] = i % 2 == 0 ? 0xFF : 0x00 }
        items.append(entry("jpeg-corrupt-scan.jpg", "jpeg", size, .corrupt, corrupt, base: base,
                           mutation: "corruptScan", offset: at,
                           note: "64 bytes mid-scan replaced by FF 00 pairs: a run of 256 one-bits is a bad Huffman code."))
        return items
    }

    static func webpItems(_ webp: [UInt8], base: String, lossless: [UInt8]) throws -> [Item] {
        // RIFF header (12) + "VP8 " chunk header (8) + frame tag (3) + start code (3) + size (4).
        guard webp.count > 40, String(decoding: webp[12..<16], as: UTF8.self) == "VP8 " else {
            throw CorpusError(description: "invalid corpus: \(base) is not a simple lossy WebP")
        }
        let size = (101, 77)
        let headerEnd = 30
        var items = [
            entry("webp-truncated-20-before-vp8-data.webp", "webp", (0, 0), .truncated, Array(webp[0..<20]),
                  base: base, mutation: "truncate", offset: 20,
                  note: "RIFF and VP8 chunk headers only: the frame header with the size is missing."),
            entry("webp-truncated-30-after-frame-header.webp", "webp", size, .truncated, Array(webp[0..<headerEnd]),
                  base: base, mutation: "truncate", offset: headerEnd,
                  note: "Size readable, no compressed data."),
        ]
        for percent in [10, 50, 90] {
            let at = cut(percent, headerEnd, webp.count)
            items.append(entry("webp-truncated-\(percent)pct.webp", "webp", size, .truncated, Array(webp[0..<at]),
                               base: base, mutation: "truncate", offset: at,
                               note: "Ends \(percent)% of the way through the VP8 data; RIFF size claims more."))
        }
        let losslessCut = lossless.count / 2
        items.append(entry("webp-lossless-truncated-50pct.webp", "webp", size, .truncated, Array(lossless[0..<losslessCut]),
                           base: "webp/lossless.webp", mutation: "truncate", offset: losslessCut,
                           note: "Lossless (VP8L) file cut in half."))
        var corrupt = webp
        corrupt[23] = 0x00 // start code 9D 01 2A becomes 00 01 2A
        items.append(entry("webp-corrupt-vp8-start-code.webp", "webp", size, .corrupt, corrupt, base: base,
                           mutation: "corruptBitstream", offset: 23,
                           note: "VP8 key-frame start code damaged; RIFF and chunk sizes intact."))
        return items
    }
}
