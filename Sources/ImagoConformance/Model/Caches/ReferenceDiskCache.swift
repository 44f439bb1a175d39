/// The disk cache MODEL-DISK and MODEL-MEMORY hold a loader to: what `LoaderCapabilities
/// .diskCache` declares (CACHE-2, CACHE-4, DISK-4), with the latitude the rules leave.
///
/// Fixed by the rules, and judged: an entry written by a successful load survives a restart; a
/// corrupt entry is a miss, fetched again and replaced; the bytes on disk stay within the limit
/// after every write; and the most recent entries that fit are kept.
///
/// Left loose: the eviction order. "Recent" may mean recently written or recently read (a disk hit
/// may or may not refresh an entry), and an entry's size on disk is its payload plus metadata of
/// the loader's own (allowed up to `metadataAllowance` bytes). An entry is therefore certain only
/// while it is among the most recent entries that fit under *both* orders with that allowance;
/// outside them it is `maybe` held, and the first load of it (disk hit or fetch) says which.
struct ReferenceDiskCache {
    /// What the model knows of one key's entry.
    enum Entry: Equatable, CustomStringConvertible {
        /// Never stored, or seen to be gone.
        case absent
        /// Certainly held and whole; `repaired` once it replaced a corrupt entry (CACHE-4).
        case held(repaired: Bool)
        /// Certainly held, and corrupt (`DiskCacheProbe.corruptEntry(for:)`).
        case corrupt
        /// Held or evicted, as the loader's eviction order decided.
        case maybe
        /// Corrupt if still held, else evicted: a miss either way.
        case maybeCorrupt

        var description: String {
            switch self {
            case .absent: "absent"
            case .held(let repaired): repaired ? "held (repaired)" : "held"
            case .corrupt: "corrupt"
            case .maybe: "maybe held"
            case .maybeCorrupt: "maybe held, corrupt"
            }
        }

        /// Certainly on disk (counted by `entryCount`).
        var isCertain: Bool { self == .corrupt || self == .held(repaired: false) || self == .held(repaired: true) }
        /// Possibly on disk.
        var isPossible: Bool { self != .absent }
    }

    /// Metadata bytes an entry may add to its payload (a sidecar, a journal line): 2 KiB.
    static let metadataAllowance = 2048

    /// The size limit asked for.
    let sizeLimit: Int
    /// Payload bytes by key (the response body a load stores).
    let payloadSizes: [Int: Int]
    private(set) var entries: [Int: Entry] = [:]
    /// Possibly held keys, least recently written first.
    private var byWrite: [Int] = []
    /// Possibly held keys, least recently written or read first.
    private var byUse: [Int] = []

    init(sizeLimit: Int, payloadSizes: [Int: Int]) {
        self.sizeLimit = sizeLimit
        self.payloadSizes = payloadSizes
    }

    /// What the model knows of `key`.
    func entry(_ key: Int) -> Entry { entries[key] ?? .absent }

    /// Entries certainly on disk.
    var certainCount: Int { entries.values.filter(\.isCertain).count }
    /// Entries possibly on disk.
    var possibleCount: Int { entries.values.filter(\.isPossible).count }

    /// A load stored `key` (fetched from the network): it is held, the most recent by both orders,
    /// and entries that no longer certainly fit become uncertain.
    mutating func stored(_ key: Int) {
        let repaired = [Entry.corrupt, .maybeCorrupt].contains(entry(key))
        entries[key] = .held(repaired: repaired)
        byWrite.removeAll { $0 == key }
        byWrite.append(key)
        byUse.removeAll { $0 == key }
        byUse.append(key)
        let kept = Set(fitting(byWrite)).intersection(fitting(byUse))
        for other in byWrite where !kept.contains(other) {
            switch entry(other) {
            case .held: entries[other] = .maybe
            case .corrupt: entries[other] = .maybeCorrupt
            case .absent, .maybe, .maybeCorrupt: break
            }
        }
    }

    /// A disk hit on `key`: it was held, and it is now the most recently used.
    mutating func read(_ key: Int) {
        if case .held = entry(key) {} else { entries[key] = .held(repaired: false) }
        byUse.removeAll { $0 == key }
        byUse.append(key)
    }

    /// `key`'s entry was seen to be gone (fetched although it might have been held).
    mutating func gone(_ key: Int) {
        entries[key] = .absent
        byWrite.removeAll { $0 == key }
        byUse.removeAll { $0 == key }
    }

    /// `key`'s entry was corrupted (it was there to corrupt). Corrupting rewrites the entry's
    /// file, and a loader that keeps its order by file times (Imago's disk cache reads a payload's
    /// mtime as its last access, so that other processes' hits count) sees that as a use: the key
    /// becomes the most recently used, and the entries older by use become uncertain at the next
    /// store. (Kept in place, image 7 of a seeded sequence was judged certainly held after Imago
    /// had rightly evicted it as least recently used.)
    mutating func corrupted(_ key: Int) {
        entries[key] = .corrupt
        if !byWrite.contains(key) { byWrite.append(key) }
        byUse.removeAll { $0 == key }
        byUse.append(key)
    }

    /// The most recent keys of `order` whose entries fit the limit together, counting each at its
    /// payload plus `metadataAllowance`; stops at the first that does not fit.
    private func fitting(_ order: [Int]) -> [Int] {
        var total = 0
        var kept: [Int] = []
        for key in order.reversed() {
            total += (payloadSizes[key] ?? 0) + Self.metadataAllowance
            guard total <= sizeLimit else { break }
            kept.append(key)
        }
        return kept
    }
}
