import Foundation
import Imago
import Synchronization

/// A memory cache an app might write instead of `MemoryCache`: a count-limited list, most
/// recently used last, that records what the pipeline asked of it. Only the public protocol is
/// used (plain `import Imago`), as from an app.
final class AppMemoryCache: ImageMemoryCaching {
    struct State {
        var entries: [(key: ImageRequestKey, image: DecodedImage, cost: Int)] = []
        var insertedCosts: [Int] = []
        var trims: [Int] = []
    }

    let countLimit: Int
    let state = Mutex(State())

    init(countLimit: Int) { self.countLimit = countLimit }

    func value(forKey key: ImageRequestKey) -> DecodedImage? {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = state.entries.remove(at: index)
            state.entries.append(entry)
            return entry.image
        }
    }

    func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        state.withLock { state in
            state.insertedCosts.append(cost)
            state.entries.removeAll { $0.key == key }
            state.entries.append((key, image, cost))
            if state.entries.count > countLimit { state.entries.removeFirst(state.entries.count - countLimit) }
            return true
        }
    }

    func trim(toCost cost: Int) {
        state.withLock { state in
            state.trims.append(cost)
            while state.entries.reduce(0, { $0 + $1.cost }) > cost { state.entries.removeFirst() }
        }
    }

    var totalCost: Int { state.withLock { $0.entries.reduce(0) { $0 + $1.cost } } }
    var keys: [ImageRequestKey] { state.withLock { $0.entries.map(\.key) } }
}

/// A disk cache an app might write instead of `DiskCache`: payload files in a directory of its
/// own, the index and metadata in memory (so it lasts as long as the object). Writes go to a
/// temporary name and are renamed into place, so an entry is visible only whole.
final class AppDiskCache: ImageDiskCaching {
    private struct Record {
        var name: String
        var byteCount: Int
        var metadata: DiskCache.Metadata
        var storedAt: Date
    }

    let directory: URL
    let sizeLimit = 64 << 20
    private let records = Mutex<[String: Record]>([:])
    private let calls = Mutex<[String]>([])

    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The operations the pipeline called, in order (`store(data)`, `store(file)`, `refresh`, `remove`).
    var operations: [String] { calls.withLock { $0 } }

    func entry(forKey key: String) -> DiskCache.Entry? {
        guard let record = records.withLock({ $0[key] }) else { return nil }
        return DiskCache.Entry(key: key, url: directory.appendingPathComponent(record.name), byteCount: record.byteCount,
                               metadata: record.metadata, storedAt: record.storedAt)
    }

    func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        guard data.count <= sizeLimit else { return false }
        calls.withLock { $0.append("store(data)") }
        let temporary = makeTemporaryFileURL()
        try data.write(to: temporary)
        return try publish(temporary, byteCount: data.count, key: key, metadata: metadata)
    }

    func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        let byteCount = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        guard byteCount <= sizeLimit else { return false }
        calls.withLock { $0.append("store(file)") }
        return try publish(url, byteCount: byteCount, key: key, metadata: metadata)
    }

    func refresh(forKey key: String, metadata: DiskCache.Metadata, revalidated: DiskCache.Metadata?) throws -> Bool {
        calls.withLock { $0.append("refresh") }
        return records.withLock { records in
            guard var record = records[key] else { return false }
            if let revalidated, revalidated.etag != record.metadata.etag { return false }
            record.metadata = metadata
            record.storedAt = Date()
            records[key] = record
            return true
        }
    }

    func removeEntry(forKey key: String) throws {
        calls.withLock { $0.append("remove") }
        if let record = records.withLock({ $0.removeValue(forKey: key) }) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(record.name))
        }
    }

    func makeTemporaryFileURL() -> URL {
        directory.appendingPathComponent("incoming-\(UUID().uuidString)")
    }

    func partialDownloadFiles(forKey key: String) -> DiskCache.PartialDownloadFiles {
        let name = "partial-\(Data(key.utf8).base64EncodedString().replacingOccurrences(of: "/", with: "_"))"
        return DiskCache.PartialDownloadFiles(file: directory.appendingPathComponent(name),
                                              record: directory.appendingPathComponent(name + ".record"))
    }

    /// Renames `file` to a fresh entry name and points `key` at it.
    private func publish(_ file: URL, byteCount: Int, key: String, metadata: DiskCache.Metadata) throws -> Bool {
        let name = "entry-\(UUID().uuidString)"
        try FileManager.default.moveItem(at: file, to: directory.appendingPathComponent(name))
        let old = records.withLock { records in
            defer { records[key] = Record(name: name, byteCount: byteCount, metadata: metadata, storedAt: Date()) }
            return records[key]
        }
        if let old { try? FileManager.default.removeItem(at: directory.appendingPathComponent(old.name)) }
        return true
    }
}
