/// Strong entity tags and the If-None-Match / If-Range comparisons (RFC 9110 §8.8.3, §13).
///
/// Why FNV-1a: a stable 64-bit hash is enough to tell bodies apart in tests, needs no
/// crypto dependency, and gives the same tag for the same bytes in every run and process.
enum EntityTag {
    /// FNV-1a 64 over `bytes`.
    static func fnv1a64<Bytes: Sequence<UInt8>>(_ bytes: Bytes, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// FNV-1a 64 over an array, through its buffer (a generic loop is slow in debug builds).
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { fnv1a64($0) }
    }

    /// `"<16 hex digits>"`: the strong tag sent in ETag.
    static func strong(hash: UInt64) -> String {
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// The tag for an in-memory body: its content hash.
    static func forBody(_ body: [UInt8]) -> String {
        strong(hash: fnv1a64(body))
    }

    /// The tag for a file: a hash of its identity and version (device, inode, size,
    /// modification time in nanoseconds), as nginx and Apache do, so a 150 MB file is not
    /// read twice per request; it changes whenever the file's content is rewritten.
    static func forFile(device: UInt64, inode: UInt64, size: Int64, modifiedNanoseconds: Int64) -> String {
        strong(hash: fnv1a64(Array("\(device)-\(inode)-\(size)-\(modifiedNanoseconds)".utf8)))
    }

    /// Whether an If-None-Match value matches `tag` (weak comparison: `W/` is ignored).
    static func noneMatchHits(_ header: String, tag: String) -> Bool {
        let wanted = opaque(tag)
        for candidate in list(header) {
            if candidate == "*" || opaque(candidate) == wanted { return true }
        }
        return false
    }

    /// Whether an If-Range entity tag allows the range (strong comparison: weak never does).
    static func ifRangeTagAllows(_ header: String, tag: String) -> Bool {
        let value = header.trimmingSpaces()
        return !value.hasPrefix("W/") && value == tag
    }

    private static func list(_ header: String) -> [String] {
        header.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
    }

    private static func opaque(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
