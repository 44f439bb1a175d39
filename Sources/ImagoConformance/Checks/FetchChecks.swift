import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let fetchChecks: [ConformanceCheck] = [
        ConformanceCheck("FETCH-1", "Both fetch strategies give identical pixels and phase sequences.",
                         requires: .selectableFetchStrategy) { run in
            let big = run.images.big
            let routes = [
                run.route("photo.png", big),
                run.route("missing.png", Route(body: Array("gone".utf8), faults: Faults(status: 404))),
                run.route("cut.png", big, faults: Faults(closeAfterBytes: big.bytes.count / 2)),
                run.route("empty.png", Route(body: [], contentType: "image/png")),
            ]
            var outcomes: [LoaderContext.FetchStrategy: [String]] = [:]
            for strategy in LoaderContext.FetchStrategy.allCases {
                var context = try run.newContext()
                context.fetchStrategy = strategy
                let loader = try run.loader(context)
                var sequences: [String] = []
                for source in routes {
                    let (_, recorder) = try await run.loadToEnd(loader, source, "\(strategy) \(source.url.lastPathComponent)")
                    sequences.append(Self.collapsed(recorder.phases))
                }
                outcomes[strategy] = sequences
                run.note("\(strategy): \(sequences)")
            }
            try run.expect(outcomes[.data] == outcomes[.file], "the strategies disagree: both fetch strategies must end a success, a 404, a truncation and an empty body in the same phases (compare the two lists in the evidence)")
        },
        ConformanceCheck("FETCH-2", "Download-to-file never holds the whole body in memory: it is on disk as it arrives.",
                         requires: .downloadsToFile) { run in
            // A 32 MiB valid PNG (small pixels, large private chunks), held by the server a
            // little before its end: by then the whole body but that tail has arrived, and what
            // the process holds is measured against a baseline taken before the load.
            let image = run.images.small
            let body = PaddedPNG.bytes(image, chunks: 32)
            let stallAt = body.count - 256 * 1024
            let stall = Gate()
            let source = run.route("big.png", Route(body: body, contentType: "image/png", faults: Faults(
                stallAfterBytes: stallAt, gate: stall, headers: ["Cache-Control": CheckRun.cacheableForADay])))
            let (model, recorder) = run.model(try run.loader(), source)
            let baseline = HeapUsage.bytesInUse()
            model.load()
            try run.expect(model.phase.name == "loading", "load(): the phase is \(model.phase), expected loading")
            try await run.server.counters.waitUntil(timeout: .seconds(30)) { $0.bodyBytesSent(for: source.url.path) >= stallAt }
            // A loader may download into its temporary directory or straight into its disk
            // cache's directory (Imago does, to rename the finished file into the cache).
            let directories = [run.context.temporaryDirectory, run.context.cacheDirectory]
            func partials(atLeast size: Int) -> [DirectoryScan.File] {
                directories.flatMap { (try? DirectoryScan.files(in: $0)) ?? [] }.filter { $0.size >= size }
            }
            var midTransfer: [DirectoryScan.File] = []
            // Everything sent is on disk but for what a writer may still buffer (1 MiB at most).
            let onDisk = await waitUntil(timeout: .seconds(10)) {
                midTransfer = partials(atLeast: stallAt - (1 << 20))
                return !midTransfer.isEmpty
            }
            let held = HeapUsage.bytesInUse()
            let growth = baseline.flatMap { before in held.map { $0 - before } }
            try run.expect(model.phase.name == "loading", "while the body's tail is held the phase is \(model.phase)")
            stall.open()
            try await run.expectTerminal(recorder, "download")
            // Afterwards: nothing in the temporary directory, and each file that held the
            // partial body is gone or has become the complete entry (renamed or written in
            // place); a partial file still there is a leak.
            let leftPartials = midTransfer.filter { file in
                guard let size = try? file.url.resourceValues(forKeys: [.fileSizeKey]).fileSize else { return false }
                return size != body.count
            }
            let left = try DirectoryScan.files(in: run.context.temporaryDirectory).count + leftPartials.count
            run.note("\(stallAt) of \(body.count) bytes sent, on disk: \(onDisk); \(HeapUsage.source) grew by "
                     + "\(growth.map(String.init) ?? "unknown") bytes; \(model.phase); temporary files left \(left)")
            try run.expect(onDisk, "the received bytes were not in a file under the temporary or cache directory mid-transfer: write the body to a file in LoaderContext.temporaryDirectory as it arrives, or do not declare .downloadsToFile")
            // A quarter of what was sent: far above the transport's buffers, far below a body
            // (or a copy of it) kept in memory.
            guard let growth else { throw CheckFailed(reason: "the process's memory use could not be read") }
            try run.expect(growth < stallAt / 4, "the process held \(growth) more bytes with \(stallAt) of the body "
                           + "received: the body is kept in memory, not only on disk; write each chunk to the file and let it go")
            try run.expectSuccess(model.phase, image, "download")
            try run.expect(left == 0, "\(left) temporary or partial files left after the download: move the finished file into the cache or delete it, and delete partial files")
        },
    ]

    /// Phase names with consecutive duplicates folded (progress counts differ between
    /// strategies), plus the terminal phase in full.
    static func collapsed(_ phases: [ObservedPhase]) -> String {
        var names: [String] = []
        for phase in phases where names.last != phase.name { names.append(phase.name) }
        let terminal: String
        switch phases.last {
        case .failure(.transport)?: terminal = "failure(transport)"   // the message may name the strategy
        case let last?: terminal = last.description
        case nil: terminal = ""
        }
        return names.joined(separator: ">") + " " + terminal
    }
}
