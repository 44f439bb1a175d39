import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An in-memory mirror of a cache directory's entries: sizes and recorded access times.
///
/// It is exact while the directory's change generation is the one it was built at (every change
/// to the set of entries happens under the directory lock and bumps the generation), so a store
/// checks the size limit without listing the directory. Access times are only a hint: hits
/// (ours or other processes') update the payload's mtime without the lock, and eviction
/// re-reads a candidate's mtime before removing it.
///
/// An eviction queue ordered by access time makes each eviction O(log n) amortised instead of a
/// sort of the whole index per store: `(time, hash)` pairs, oldest first, consumed from
/// `queueHead`. Pairs go stale when an entry is replaced, touched or removed; they are skipped
/// when popped (the item's current time no longer matches) and dropped when the queue is rebuilt.
struct DiskCacheIndex {
    struct Item: Equatable {
        var payloadSize: Int
        var sidecarSize: Int
        /// The payload's mtime when last seen, in nanoseconds since 1970: the recorded access.
        var accessTime: Int64
        /// What the entry counts against the size limit: payload plus sidecar bytes.
        var size: Int { payloadSize + sidecarSize }
    }

    private(set) var items: [String: Item] = [:]
    private(set) var totalSize = 0
    private var queue: [(time: Int64, hash: String)] = []
    private var queueHead = 0

    init() {}

    /// An index of `items`, its queue sorted once.
    init(items: [String: Item]) {
        self.items = items
        totalSize = items.values.reduce(0) { $0 + $1.size }
        rebuildQueue()
    }

    subscript(hash: String) -> Item? {
        get { items[hash] }
        set {
            if let old = items[hash] { totalSize -= old.size }
            items[hash] = newValue
            if let new = newValue {
                totalSize += new.size
                enqueue(time: new.accessTime, hash: hash)
            }
            if queue.count > 2 * items.count + 1024 { rebuildQueue() }
        }
    }

    /// Removes and returns the least recently accessed entry's queue position (the entry stays
    /// in the index). Pair it with `self[hash] = nil` to evict, or `enqueue` to put it back.
    mutating func popLeastRecent() -> (hash: String, item: Item)? {
        while queueHead < queue.count {
            let (time, hash) = queue[queueHead]
            queueHead += 1
            if let item = items[hash], item.accessTime == time { return (hash, item) }
        }
        return nil
    }

    /// Inserts `(time, hash)` in order; O(1) for the usual case of the newest time.
    mutating func enqueue(time: Int64, hash: String) {
        var low = queueHead, high = queue.count
        if high == low || queue[high - 1].time <= time {
            queue.append((time, hash))
            return
        }
        while low < high {
            let mid = (low + high) / 2
            if queue[mid].time <= time { low = mid + 1 } else { high = mid }
        }
        queue.insert((time, hash), at: low)
    }

    mutating func removeAll() {
        items.removeAll()
        totalSize = 0
        queue.removeAll()
        queueHead = 0
    }

    private mutating func rebuildQueue() {
        queue = items.map { (time: $0.value.accessTime, hash: $0.key) }.sorted { $0.time < $1.time }
        queueHead = 0
    }
}

/// The state `DiskCache` keeps under its `DirectoryLock`.
struct DiskCacheState: DirectoryMirror {
    var index = DiskCacheIndex()
    var syncedGeneration: UInt64?
    /// When the last full sweep ran, by the cache's clock.
    var lastSweep: Date?
}

/// Paths inside one cache directory, and the listing, sweep and eviction that run under its
/// lock. Stateless; the caller passes the mirror to update.
struct DiskCacheDirectory: Sendable {
    let path: String

    func payloadPath(_ hash: String) -> String { path + "/" + hash }
    func sidecarPath(_ hash: String) -> String { path + "/" + DiskCacheNaming.sidecarName(forHash: hash) }

    /// Removes an entry: payload first, so a visible payload always has its sidecar.
    /// Returns whether anything existed.
    @discardableResult
    func removeEntry(_ hash: String) throws -> Bool {
        let payload = try DiskFileIO.remove(payloadPath(hash))
        let sidecar = try DiskFileIO.remove(sidecarPath(hash))
        return payload || sidecar
    }

    /// Lists the directory into a fresh index, removing what must never be served: temporary
    /// files older than `grace` (younger ones may be another process's write in flight), orphan
    /// sidecars, payloads without a sidecar, and, when `validate` is set, entries whose sidecar
    /// is unreadable or disagrees with the payload's size or inode. Must run under the lock.
    /// - Returns: the index and whether anything was removed.
    func scan(validate: Bool, now: Date, grace: Duration) throws -> (DiskCacheIndex, removedAny: Bool) {
        var payloads: [String: stat] = [:]
        var sidecars: [String: Int] = [:]
        var removedAny = false
        let cutoff = timespec(now.addingTimeInterval(-grace.seconds)).nanosecondsSince1970
        for (name, info) in try DiskFileIO.listDirectoryWithStatus(path) {
            switch DiskCacheNaming.classify(name) {
            case .temporary:
                if info.st_mtim.nanosecondsSince1970 < cutoff {
                    removedAny = try DiskFileIO.remove(path + "/" + name) || removedAny
                }
            case .payload(let hash):
                payloads[hash] = info
            case .sidecar(let hash):
                sidecars[hash] = Int(info.st_size)
            case .other:
                continue
            }
        }
        var items: [String: DiskCacheIndex.Item] = [:]
        for (hash, sidecarSize) in sidecars where payloads[hash] == nil {
            _ = sidecarSize
            removedAny = try DiskFileIO.remove(sidecarPath(hash)) || removedAny   // orphan sidecar
        }
        for (hash, payload) in payloads {
            var valid = sidecars[hash] != nil
            if valid && validate {
                let data = try DiskFileIO.readSmallFile(sidecarPath(hash))
                valid = data.flatMap(DiskCacheSidecar.decode).map {
                    $0.describes(payload) && DiskCacheNaming.hash(forKey: $0.key) == hash
                } ?? false
            }
            if valid {
                items[hash] = .init(payloadSize: Int(payload.st_size), sidecarSize: sidecars[hash]!,
                                    accessTime: payload.st_mtim.nanosecondsSince1970)
            } else {
                try removeEntry(hash)
                removedAny = true
            }
        }
        return (DiskCacheIndex(items: items), removedAny)
    }

    /// Evicts least recently accessed entries until `index.totalSize <= limit`, never `spared`.
    /// Must run under the lock with an exact index.
    ///
    /// Candidates come oldest first by recorded access time; each one's payload mtime is read
    /// again before removal. If it moved (a hit since the index saw it, possibly in another
    /// process), the candidate is re-queued at its true time instead of being removed, so the
    /// order is exact LRU by recorded access at the cost of one `lstat` per candidate.
    /// - Returns: how many entries were removed.
    func evict(_ index: inout DiskCacheIndex, toSize limit: Int, sparing spared: String?) throws -> Int {
        var removed = 0
        var setAside: [(time: Int64, hash: String)] = []
        defer { for pair in setAside { index.enqueue(time: pair.time, hash: pair.hash) } }
        while index.totalSize > limit, let (hash, item) = index.popLeastRecent() {
            if hash == spared {
                setAside.append((item.accessTime, hash))
                continue
            }
            guard let info = try DiskFileIO.status(payloadPath(hash)) else {
                try removeEntry(hash)   // gone already: forget it (and drop its sidecar)
                index[hash] = nil
                continue
            }
            let time = info.st_mtim.nanosecondsSince1970
            if time > item.accessTime {
                index[hash]?.accessTime = time   // re-queued at its true access time
                continue
            }
            try removeEntry(hash)
            index[hash] = nil
            removed += 1
        }
        return removed
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
