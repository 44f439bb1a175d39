import Crypto
import Foundation

/// File names inside a disk cache directory.
///
/// - `<sha256-hex>`: the payload, exactly the original encoded bytes of one entry. The name is
///   the lowercase hex SHA-256 of the full key: fixed length (64 characters) whatever the key,
///   safe in any file system, and the same key always maps to the same file (DISK-2).
/// - `<sha256-hex>.meta`: the entry's sidecar (validators, storage date, byte count, key).
/// - `.tmp-<uuid>`: a write in progress; never served, removed when older than the grace period.
/// - `.tmp-imago-download-<uuid>`: a body handed out to be moved in (`DiskCache.makeTemporaryFileURL`).
/// - `.tmp-imago-partial-<sha256-hex>` and its `.json` record: a partial download kept between
///   loads (`DiskCache.partialDownloadFiles(forKey:)`).
/// All three are temporaries: a killed process's leftovers go with the sweep.
/// - `.lock`: the advisory lock (and the directory's change counter).
/// Anything else in the directory is left alone and not counted.
enum DiskCacheNaming {
    static let temporaryPrefix = ".tmp-"
    /// Bodies the cache hands out to be written and moved in.
    static let handedOutPrefix = temporaryPrefix + "imago-download-"
    /// Partial downloads kept between loads.
    static let partialDownloadPrefix = temporaryPrefix + "imago-partial-"
    static let partialRecordSuffix = ".json"
    static let sidecarSuffix = ".meta"
    static let lockFileName = ".lock"
    static let hashLength = 64

    enum Kind: Equatable {
        case payload(hash: String)
        case sidecar(hash: String)
        case temporary
        case other
    }

    /// The lowercase hex SHA-256 of the UTF-8 key.
    static func hash(forKey key: String) -> String {
        let digest = SHA256.hash(data: Data(key.utf8))
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(hashLength)
        for byte in digest {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func sidecarName(forHash hash: String) -> String { hash + sidecarSuffix }

    static func classify(_ name: String) -> Kind {
        let utf8 = name.utf8
        if utf8.first == UInt8(ascii: ".") {
            return name.hasPrefix(temporaryPrefix) ? .temporary : .other
        }
        let isSidecar = utf8.count == hashLength + sidecarSuffix.utf8.count && name.hasSuffix(sidecarSuffix)
        guard utf8.count == hashLength || isSidecar else { return .other }
        var count = 0
        for byte in utf8.prefix(hashLength) {
            guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return .other }
            count += 1
        }
        guard count == hashLength else { return .other }
        return isSidecar ? .sidecar(hash: String(name.prefix(hashLength))) : .payload(hash: name)
    }
}
