import Foundation

/// Cache contents that prove themselves: the bytes start with a tag naming the key and the
/// write, and the rest is derived from the tag. Any complete copy can be checked; a prefix, a
/// mix of two writes, or another key's bytes cannot pass.
enum CrashPayload {
    /// Between 1 and 48 KiB, chosen by the tag: big enough that a kill can land mid-write.
    static func bytes(key: String, write: String) -> Data {
        let tag = key + "#" + write
        var state = fnv1a(tag)
        let length = 1024 + Int(state % (47 * 1024))
        // A 251-byte block from the tag, repeated: cheap to make, so the writer spends its time
        // in the cache (where the kills should land), and still unique to this write.
        var block = [UInt8](repeating: 0, count: 251)
        for index in block.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            block[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        var data = Data(tag.utf8) + Data([0])
        data.reserveCapacity(length + block.count)
        while data.count < length { data.append(contentsOf: block) }
        return data.prefix(length)
    }

    /// The key a complete payload was written for, or nil when `data` is not exactly one
    /// write's complete bytes.
    static func key(ofComplete data: Data) -> String? {
        guard let end = data.firstIndex(of: 0) else { return nil }
        let tag = String(decoding: data[..<end], as: UTF8.self)
        guard let separator = tag.firstIndex(of: "#") else { return nil }
        let key = String(tag[..<separator]), write = String(tag[tag.index(after: separator)...])
        return bytes(key: key, write: write) == data ? key : nil
    }

    /// FNV-1a: stable across processes (Swift's `hashValue` is seeded per process).
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
