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
            try disk.simulateCrashWhileStoring(Data(image.bytes), for: source.url, writtenBytes: written)
            let restarted = try run.loader()
            let (model, recorder) = try await run.loadToEnd(restarted, source, "load after the crash")
            let partial = Data(image.bytes.prefix(written))
            let leftovers = try DirectoryScan.files(in: run.context.cacheDirectory).filter { $0.size == written }
                .filter { (try? Data(contentsOf: $0.url)) == partial }
            run.note("after the crash \(recorder.transcript), requests \(run.requests(source)), decodes \(restarted.decodeCount), "
                     + "partial files left \(leftovers.count)")
            try run.expectSuccess(model.phase, image, origin: .network, "load after the crash")
            try run.expect(restarted.decodeCount == 1, "the partial entry was handed to the decoder: write to a temporary name and rename it into place when complete")
            try run.expect(leftovers.isEmpty, "the crash leftover is still on disk: remove the writer's leftovers (e.g. unfinished temporary files) when the cache opens")
        },
        ConformanceCheck("DISK-2", "Hashed names; two concurrent writers of one key leave one complete entry.",
                         requires: .diskCache) { run in
            let gate = Gate()
            let image = run.images.small
            let source = run.route("concurrent-writers-of-one-key.png", image, faults: Faults(gate: gate))
            let writers = [try run.loader(), try run.loader()]
            let models = writers.map { run.model($0, source) }
            for (model, _) in models { model.load() }
            try await run.server.counters.waitUntil { $0.requests(for: source.url.path) == 2 }
            gate.open()
            for (_, recorder) in models { try await run.expectTerminal(recorder, "concurrent writer") }
            let reader = try run.loader()
            run.server.setRoute(source.url.path, Route(body: [], faults: Faults(status: 503)))
            let (model, _) = try await run.loadToEnd(reader, source, "read back")
            let names = try DirectoryScan.files(in: run.context.cacheDirectory).map(\.url.lastPathComponent)
            run.note("entries \(reader.diskCache?.entryCount ?? -1), read back \(model.phase), names \(names)")
            try run.expect(reader.diskCache?.entryCount == 1, "\(reader.diskCache?.entryCount ?? -1) entries for one key, expected 1: give each writer its own temporary file and rename it over the key's name")
            try run.expectSuccess(model.phase, image, origin: .disk, "read back")
            try run.expect(!names.contains { $0.contains("concurrent") }, "file names are not a hash of the key: name entries by a hash (e.g. SHA-256) of the key, not by the URL's path")
        },
        ConformanceCheck("DISK-3", "Only complete, validated images are stored.", requires: .diskCache) { run in
            let loader = try run.loader()
            let big = run.images.big
            let sources = [
                run.route("page.png", Route(body: Array("<html>not an image</html>".utf8), contentType: "image/png")),
                run.route("cut.png", big, faults: Faults(closeAfterBytes: big.bytes.count / 3)),
                run.route("missing.png", Route(body: Array("gone".utf8), faults: Faults(status: 404))),
                run.route("empty.png", Route(body: [], contentType: "image/png")),
            ]
            for source in sources { _ = try await run.loadToEnd(loader, source, source.url.lastPathComponent) }
            let disk = loader.diskCache
            run.note("entries \(disk?.entryCount ?? -1), bytes \(disk?.totalSize ?? -1)")
            try run.expect(disk?.entryCount == 0, "stored \(disk?.entryCount ?? -1) entries from failed loads: store only 2xx bodies that arrived whole and decoded")
        },
        ConformanceCheck("DISK-4", "The size limit holds after every write.", requires: .diskCache) { run in
            let images = (0..<6).map { run.images.series($0) }
            run.context.diskSizeLimit = images[0].bytes.count * 5 / 2 + 4096
            let loader = try run.loader()
            guard let disk = loader.diskCache else { throw CheckFailed(reason: "declares .diskCache but has no probe: return a DiskCacheProbe from LoaderUnderTest.diskCache, or do not declare .diskCache") }
            let limit = run.context.diskSizeLimit ?? 0
            try run.expect(disk.sizeLimit == limit, "the cache's limit is \(disk.sizeLimit), asked for \(limit): pass LoaderContext.diskSizeLimit to the disk cache")
            var sizes: [Int] = []
            for (index, image) in images.enumerated() {
                _ = try await run.loadToEnd(loader, run.route("series-\(index).png", image), "image \(index)")
                // What the directory really holds, not what the cache says it holds.
                sizes.append(try DirectoryScan.files(in: run.context.cacheDirectory).reduce(0) { $0 + $1.size })
            }
            run.note("limit \(limit), bytes on disk after each write \(sizes), entries \(disk.entryCount)")
            try run.expect(sizes.allSatisfy { $0 <= limit }, "over the limit \(limit) after a write (bytes on disk \(sizes)): evict old entries after every write, counting what the directory really holds")
            try run.expect(disk.entryCount >= 2, "the cache kept \(disk.entryCount) entries where 2 fit: evict only until the total fits")
        },
    ]
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
}
