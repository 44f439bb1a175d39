import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let diskChecks: [ConformanceCheck] = [
        ConformanceCheck("DISK-1", "A crash mid-write leaves nothing that is served; leftovers are removed.",
                         requires: .diskCache) { run in
            let image = run.images.big
            let source = run.route("crashed.png", image)
            let written = image.bytes.count / 2
            let before = try run.loader()
            guard let disk = before.diskCache else { throw CheckFailed(reason: "declares .diskCache but has no probe: return a DiskCacheProbe from LoaderUnderTest.diskCache, or do not declare .diskCache") }
            try await disk.simulateCrashWhileStoring(Data(image.bytes), for: source.url, writtenBytes: written)
            let restarted = try run.loader()
            let (model, recorder) = try await run.loadToEnd(restarted, source, "load after the crash")
            let partial = Data(image.bytes.prefix(written))
            let leftovers = try DirectoryScan.files(in: run.context.cacheDirectory).filter { $0.size == written }
                .filter { (try? Data(contentsOf: $0.url)) == partial }
            let decodes = await restarted.decodeCount
            run.note("after the crash \(recorder.transcript), requests \(run.requests(source)), decodes \(decodes), "
                     + "partial files left \(leftovers.count)")
            try run.expectSuccess(model.phase, image, origin: .network, "load after the crash")
            try run.expect(decodes == 1, "the partial entry was handed to the decoder: write to a temporary name and rename it into place when complete")
            try run.expect(leftovers.isEmpty, "the crash leftover is still on disk: remove the writer's leftovers (e.g. unfinished temporary files) when the cache opens")
        },
        ConformanceCheck("DISK-2", "Hashed names; two concurrent writers of one key leave one complete entry.",
                         requires: .diskCache) { run in
            // Two loader instances on one cache directory fetch one URL, and the server gives
            // each a different valid image of a different length, both held half-sent: both
            // writes are under way at once, and an entry mixing them (a temporary file shared
            // by the writers) is neither image.
            let images = try [run.images.big, ConformanceImage.photo(seed: 7, width: 200, height: 240)]
            let path = "concurrent-writers-of-one-key.png"
            let gate = Gate()
            func faults(_ image: ConformanceImage) -> Faults { Faults(stallAfterBytes: image.bytes.count / 2, gate: gate) }
            let writers = [try run.loader(), try run.loader()]
            var models: [(model: any ModelUnderTest, recorder: PhaseRecorder)] = []
            var source: ConformanceSource?
            var sent = 0
            for (writer, image) in zip(writers, images) {
                // The route is switched between the requests: each response keeps the body it started with.
                let route = run.route(path, image, faults: faults(image))
                source = route
                let (model, recorder) = run.model(writer, route)
                model.load()
                sent += image.bytes.count / 2
                let target = sent
                try await run.server.counters.waitUntil { $0.bodyBytesSent(for: route.url.path) >= target }
                try run.expect(model.phase.name == "loading", "writer \(models.count + 1) (\(run.name(model))): while held the phase is \(model.phase)")
                models.append((model, recorder))
            }
            guard let source else { return }
            gate.open()
            for (index, (model, recorder)) in models.enumerated() {
                // Either image is right: a writer may show the entry the other one stored first.
                try await run.expectTerminal(recorder, "writer \(index + 1) (\(run.name(model)))")
                try run.expect(images.contains { $0.fingerprint == model.phase.image },
                               "writer \(index + 1) (\(run.name(model))): expected a success showing one of the two images, got \(model.phase)")
            }
            let reader = try run.loader()
            run.server.setRoute(source.url.path, Route(body: [], faults: Faults(status: 503)))
            let (model, _) = try await run.loadToEnd(reader, source, "read back")
            let names = try DirectoryScan.files(in: run.context.cacheDirectory).map(\.url.lastPathComponent)
            let which = images.firstIndex { $0.fingerprint == model.phase.image }.map { "writer \($0 + 1)'s image" } ?? "neither image"
            let entries = await reader.diskCache?.entryCount ?? -1
            run.note("entries \(entries), read back \(model.phase) (\(which)), names \(names)")
            try run.expect(entries == 1, "\(entries) entries for one key, expected 1: give each writer its own temporary file and rename it over the key's name")
            guard case .success(.disk, let fingerprint) = model.phase, images.contains(where: { $0.fingerprint == fingerprint }) else {
                throw CheckFailed(reason: "read back: expected one writer's whole image from disk, got \(model.phase): writers of one key must not share a temporary file")
            }
            try run.expect(!names.contains { $0.contains("concurrent") }, "file names are not a hash of the key: name entries by a hash (e.g. SHA-256) of the key, not by the URL's path")
        },
        ConformanceCheck("DISK-3", "Only complete, validated images are stored.", requires: .diskCache) { run in
            // The cache is filled close to its size limit with good entries first, so a loader
            // that stores a failed load's bytes (even briefly, removing them after the decode
            // fails) has to evict good entries to make room; and the cache directory is watched
            // while each failed load runs, so a publication that is undone later is still seen.
            let series = try run.images.series(0).bytes.count
            run.context.diskSizeLimit = series * 6 + 4096
            let loader = try run.loader()
            guard let disk = loader.diskCache else { throw CheckFailed(reason: "declares .diskCache but has no probe") }
            // The limit asked for: a loader that ignores it (DISK-4's business) reports its own,
            // possibly Int.max, and is filled to what was asked all the same.
            let limit = min(await disk.sizeLimit, series * 6 + 4096)
            let good = try await Self.fillDisk(run, loader, disk, limit: limit)
            // Entry files only: a journal or index beside them may change with every load.
            let cacheDirectory = run.context.cacheDirectory
            func entryFiles() throws -> [String] {
                try DirectoryScan.files(in: cacheDirectory).filter { Self.namesEntry($0.url.lastPathComponent) }
                    .map { "\($0.url.path):\($0.size)" }
            }
            let goodFiles = try entryFiles()
            let big = run.images.big
            let page = Array("<html>not an image</html>".utf8)
            let largePage = page + Array(repeating: UInt8(ascii: " "), count: limit / 2 - page.count)
            let sources = [
                run.route("page.png", Route(body: page, contentType: "image/png")),
                run.route("large-page.png", Route(body: largePage, contentType: "image/png")),
                run.route("cut.png", big, faults: Faults(closeAfterBytes: big.bytes.count / 3)),
                run.route("missing.png", Route(body: Array("gone".utf8), faults: Faults(status: 404))),
                run.route("empty.png", Route(body: [], contentType: "image/png")),
            ]
            for source in sources {
                let name = source.url.lastPathComponent
                let watch = try DirectoryWatch(try DirectoryScan.directories(in: run.context.cacheDirectory))
                defer { watch.close() }
                let (model, _) = try await run.loadToEnd(loader, source, name)
                try run.expect(model.phase.failure != nil, "\(name): expected a failure, got \(model.phase)")
                let renamed = watch.events().filter { Self.namesEntry($0.name) }
                let files = try entryFiles()
                let lost = goodFiles.filter { !files.contains($0) }
                let entries = await disk.entryCount
                run.note("\(name): entries \(entries), entry files written \(renamed), good files lost \(lost.count)")
                try run.expect(renamed.isEmpty, "\(name): the failed load wrote entry files (\(renamed)) into the cache "
                               + "directory: its bytes were stored, even if they were removed afterwards")
                try run.expect(lost.isEmpty && entries == good,
                               "\(name): the failed load left \(entries) entries of \(good) and lost \(lost.count) "
                               + "good files (its bytes were stored, evicting good entries)")
            }
        },
        ConformanceCheck("DISK-4", "The size limit holds after every write.", requires: .diskCache) { run in
            let images = try (0..<6).map { (index) throws(ShippedImageError) in try run.images.series(index) }
            run.context.diskSizeLimit = images[0].bytes.count * 5 / 2 + 4096
            let loader = try run.loader()
            guard let disk = loader.diskCache else { throw CheckFailed(reason: "declares .diskCache but has no probe: return a DiskCacheProbe from LoaderUnderTest.diskCache, or do not declare .diskCache") }
            let limit = run.context.diskSizeLimit ?? 0
            let reportedLimit = await disk.sizeLimit
            try run.expect(reportedLimit == limit, "the cache's limit is \(reportedLimit), asked for \(limit): pass LoaderContext.diskSizeLimit to the disk cache")
            var sizes: [Int] = []
            for (index, image) in images.enumerated() {
                _ = try await run.loadToEnd(loader, run.route("series-\(index).png", image), "image \(index)")
                // What the directory really holds, not what the cache says it holds.
                sizes.append(try DirectoryScan.files(in: run.context.cacheDirectory).reduce(0) { $0 + $1.size })
            }
            let entries = await disk.entryCount
            run.note("limit \(limit), bytes on disk after each write \(sizes), entries \(entries)")
            try run.expect(sizes.allSatisfy { $0 <= limit }, "over the limit \(limit) after a write (bytes on disk \(sizes)): evict old entries after every write, counting what the directory really holds")
            try run.expect(entries >= 2, "the cache kept \(entries) entries where 2 fit: evict only until the total fits")
        },
    ]
}

extension ConformanceCheck {
    /// Whether a file name is an entry's rather than a temporary's: DISK-2 names entries by the
    /// SHA-256 of their key, so an entry's file names start with 64 hex digits (`<hash>`,
    /// `<hash>.meta`); a temporary's start otherwise (`.tmp-<UUID>`, `.tmp-partial-<hash>`) or
    /// end in one of `temporarySuffixes` (`<hash>.tmp`, `<hash>.part`).
    static func namesEntry(_ name: String) -> Bool {
        guard name.count >= 64, name.prefix(64).allSatisfy(\.isHexDigit) else { return false }
        return !temporarySuffixes.contains { name.lowercased().hasSuffix($0) }
    }

    /// Endings that mark a file still being written, not an entry.
    static let temporarySuffixes = [".tmp", ".temp", ".part", ".partial", ".download", ".incomplete"]

    /// Loads distinct small images until the next would not fit under `limit` (at most the disk
    /// cache's size limit); fails if filling evicted any. Returns the number of entries held.
    @MainActor
    static func fillDisk(_ run: CheckRun, _ loader: any LoaderUnderTest, _ disk: any DiskCacheProbe,
                         limit: Int) async throws -> Int {
        var count = 0
        var entrySize = 0
        repeat {
            let image = try run.images.series(count)
            let before = await disk.totalSize
            let (model, _) = try await run.loadToEnd(loader, run.route("fill-\(count).png", image), "fill \(count)")
            try run.expectSuccess(model.phase, image, "fill \(count)")
            count += 1
            let (entries, total, sizeLimit) = (await disk.entryCount, await disk.totalSize, await disk.sizeLimit)
            entrySize = max(entrySize, total - before)
            try run.expect(entries == count && total <= sizeLimit,
                           "filling: after \(count) loads the disk cache holds \(entries) entries, "
                           + "\(total) of \(sizeLimit) bytes")
        } while await disk.totalSize + entrySize <= limit && count < 64
        return count
    }
}

/// Regular files below a directory (the DISK checks look for leftovers and file names).
enum DirectoryScan {
    struct File {
        let url: URL
        let size: Int
    }

    static func files(in directory: URL) throws -> [File] {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey])
        else { return [] }
        var files: [File] = []
        for case let url as URL in walker {
            let values = try url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
            if values.isRegularFile == true { files.append(File(url: url, size: values.fileSize ?? 0)) }
        }
        return files
    }

    /// `directory` and every directory below it.
    static func directories(in directory: URL) throws -> [URL] {
        var found = [directory]
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isDirectoryKey])
        else { return found }
        for case let url as URL in walker where try url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory == true {
            found.append(url)
        }
        return found
    }
}
