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
            let big = run.images.big
            let stall = Gate()
            let source = run.route("big.png", big, faults: Faults(stallAfterBytes: big.bytes.count * 3 / 4, gate: stall))
            let (model, recorder) = run.model(try run.loader(), source)
            model.load()
            try await run.server.counters.waitUntil { $0.bodyBytesSent(for: source.url.path) >= big.bytes.count * 3 / 4 }
            // A loader may download into its temporary directory or straight into its disk
            // cache's directory (Imago does, to rename the finished file into the cache).
            let directories = [run.context.temporaryDirectory, run.context.cacheDirectory]
            func partials() -> [DirectoryScan.File] {
                directories.flatMap { (try? DirectoryScan.files(in: $0)) ?? [] }.filter { $0.size >= big.bytes.count / 2 }
            }
            var midTransfer: [DirectoryScan.File] = []
            let onDisk = await waitUntil(timeout: .seconds(5)) {
                midTransfer = partials()
                return !midTransfer.isEmpty
            }
            stall.open()
            try await run.expectTerminal(recorder, "download")
            // Afterwards: nothing in the temporary directory, and each file that held the
            // partial body is gone or has become the complete entry (renamed or written in
            // place); a partial file still there is a leak.
            let leftPartials = midTransfer.filter { file in
                guard let size = try? file.url.resourceValues(forKeys: [.fileSizeKey]).fileSize else { return false }
                return size != big.bytes.count
            }
            let left = try DirectoryScan.files(in: run.context.temporaryDirectory).count + leftPartials.count
            run.note("\(big.bytes.count / 2)+ bytes on disk mid-transfer: \(onDisk); \(model.phase); temporary files left \(left)")
            try run.expect(onDisk, "the received bytes were not in a file under the temporary or cache directory mid-transfer: write the body to a file in LoaderContext.temporaryDirectory as it arrives, or do not declare .downloadsToFile")
            try run.expectSuccess(model.phase, big, "download")
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
