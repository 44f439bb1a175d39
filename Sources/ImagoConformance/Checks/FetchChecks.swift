import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let fetchChecks: [ConformanceCheck] = [
        ConformanceCheck("FETCH-1", "Both fetch strategies give identical pixels and phase sequences.",
                         requires: .selectableFetchStrategy) { run in
            // The two-strategy case of FETCH-3 (in memory against download to file), kept under
            // its own ID for the reports and the planted-bug catalogue that name it.
            let outcomes = try await Self.compareStrategies(run, [.data, .file], routes: Self.strategyRoutes(run),
                                                            collapse: Self.collapsed)
            try run.expect(outcomes[0].sequences == outcomes[1].sequences, "the strategies disagree: both fetch strategies must end a success, a 404, a truncation and an empty body in the same phases (compare the two lists in the evidence)")
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
        ConformanceCheck("FETCH-3", "Every fetch strategy the loader offers gives identical pixels and the same phase sequence, "
                            + "apart from progress and previews.", requires: .selectableFetchStrategy) { run in
            // FETCH-1's responses, plus a progressive JPEG and an Adam7 PNG trickled in over a
            // quarter of a second each, so a strategy that decodes while streaming shows its
            // previews: they may add loading phases, never another phase, and the pixels at the
            // end must be the same (a JPEG's are compared between strategies, a PNG's are exact).
            let strategies = run.subject.capabilities.fetchStrategies
            let progressive = try StreamedImage.jpeg(seed: 31, width: 320, height: 240, progressive: true)
            let interlaced = try StreamedImage.png(seed: 32, width: 256, height: 192, interlaced: true)
            var routes = Self.strategyRoutes(run)
            for (name, image) in [("progressive.jpg", progressive), ("interlaced.png", interlaced)] {
                routes.append(run.route(name, Route(body: image.bytes, contentType: image.contentType, faults: Faults(
                    bytesPerSecond: image.bytes.count * 4, headers: ["Cache-Control": CheckRun.cacheableForADay]))))
            }
            run.note("strategies offered: \(strategies.map(\.rawValue))")
            let outcomes = try await Self.compareStrategies(run, strategies, routes: routes,
                                                            collapse: Self.collapsedApartFromProgressAndPreviews)
            let reference = outcomes[0]
            for other in outcomes.dropFirst() {
                for (index, source) in routes.enumerated() where other.sequences[index] != reference.sequences[index] {
                    let name = source.url.lastPathComponent
                    let (expected, observed) = (reference.sequences[index], other.sequences[index])
                    let samePhases = expected.split(separator: " ").first == observed.split(separator: " ").first
                    let hint = samePhases
                        ? "the same phases end differently: give every strategy the same outcome (status, truncation, empty body) and, for a success, the same pixels (decode a streamed body exactly as a stored one)"
                        : "the phases differ: a strategy may only add or drop loading phases (progress, previews), never publish a preview as anything but loading"
                    throw CheckFailed(reason: "\(name): \(reference.strategy) gives \(expected), \(other.strategy) gives \(observed); \(hint)")
                }
            }
            // Agreement is not enough: both images are valid, so they must decode, the PNG exactly.
            let (jpegIndex, pngIndex) = (routes.count - 2, routes.count - 1)
            try run.expect(reference.sequences[jpegIndex].contains(" success("),
                           "progressive.jpg: \(reference.strategy) gives \(reference.sequences[jpegIndex]): a valid progressive JPEG must end in success")
            try run.expect(reference.sequences[pngIndex].hasSuffix(",\(interlaced.fingerprint!))"),
                           "interlaced.png: \(reference.strategy) gives \(reference.sequences[pngIndex]), expected a success with pixels "
                           + "\(interlaced.fingerprint!): decode an Adam7-interlaced PNG to its exact pixels")
        },
        ConformanceCheck("FETCH-4", "Decoding while streaming never holds the whole compressed body in memory, and a cancel "
                            + "mid-stream ends the transfer and the decode together.", requires: .decodesWhileStreaming) { run in
            run.context.fetchStrategy = .stream
            let loader = try run.loader()
            try await Self.streamsWithoutHoldingTheBody(run, loader)
            try await Self.cancelMidStreamEndsTransferAndDecode(run, loader)
        },
    ]

    /// FETCH-4's first half, as FETCH-2 measures a download to file: a 32 MiB valid PNG whose
    /// pixels are small (private chunks pad it), held by the server a little before its end;
    /// the process's live heap then, against a baseline taken before the load, must have grown
    /// by far less than the bytes received. A decoder skips the padding as it arrives, so only
    /// a loader that keeps the body (or a copy of it) holds it.
    @MainActor
    static func streamsWithoutHoldingTheBody(_ run: CheckRun, _ loader: any LoaderUnderTest) async throws {
        let image = run.images.small
        let body = PaddedPNG.bytes(image, chunks: 32)
        let stallAt = body.count - 256 * 1024
        let stall = Gate()
        let source = run.route("padded.png", Route(body: body, contentType: "image/png", faults: Faults(
            stallAfterBytes: stallAt, gate: stall, headers: ["Cache-Control": CheckRun.cacheableForADay])))
        let hasDiskCache = run.subject.capabilities.contains(.diskCache)
        let (model, recorder) = run.model(loader, source)
        let baseline = HeapUsage.bytesInUse()
        let received = try await loadUntilSent(run, model, source, "padded.png", bytes: stallAt)
        let held = HeapUsage.bytesInUse()
        let growth = baseline.flatMap { before in held.map { $0 - before } }
        // Decoding while streaming keeps no copy of the body on disk either, unless a disk cache
        // stores it as it arrives (then in the cache's directory or the temporary one).
        let midTransfer = ((try? DirectoryScan.files(in: run.context.temporaryDirectory)) ?? [])
            .filter { $0.size >= 1 << 20 }
        try run.expect(model.phase.name == "loading", "while the body's tail is held the phase is \(model.phase), expected loading")
        stall.open()
        try await run.expectTerminal(recorder, "streamed load")
        var left = try DirectoryScan.files(in: run.context.temporaryDirectory)
        if !hasDiskCache { left += try DirectoryScan.files(in: run.context.cacheDirectory) }
        run.note("\(stallAt) of \(body.count) bytes sent\(received.map { ", \($0) reported received" } ?? ""); "
                 + "\(HeapUsage.source) grew by \(growth.map(String.init) ?? "unknown") bytes; files of 1 MiB or more in the "
                 + "temporary directory mid-transfer \(midTransfer.count); \(model.phase); files left \(left.map(\.url.lastPathComponent))")
        guard let growth else { throw CheckFailed(reason: "the process's memory use could not be read") }
        // A quarter of what was sent, as FETCH-2: far above a decoder's and the transport's
        // buffers, far below the body kept in memory.
        try run.expect(growth < stallAt / 4, "the process held \(growth) more bytes with \(stallAt) of the body sent: the "
                       + "compressed body is kept in memory; hand each piece to the decoder as it arrives and let it go")
        try run.expect(hasDiskCache || midTransfer.isEmpty, "with no disk cache, \(midTransfer.count) file(s) of the body were in the temporary directory mid-transfer: decoding while streaming keeps no copy of the body (that is a download to file)")
        try run.expectSuccess(model.phase, image, "streamed load")
        try run.expect(left.isEmpty, "\(left.count) file(s) left after the streamed load (\(left.map(\.url.lastPathComponent))): delete what the stream wrote unless it became a disk cache entry")
    }

    /// FETCH-4's second half: a PNG of 32 MiB decoded (stored uncompressed, so about as large
    /// on the wire) held by the server half-way, the decode well under way; after `cancel()` the
    /// phase is `empty` before it returns, the server sees the connection closed, the heap (and,
    /// with a lifetime probe, the loader's live decoded bytes) returns near its baseline, and
    /// nothing more is published.
    /// `load()`, expecting `loading`, then waits until the server has sent `bytes` of the body.
    /// What the socket accepted may still sit in kernel buffers; a loader that reports progress
    /// shows when it has taken nearly all of it (not required: then the socket buffers, a few MiB,
    /// are simply not counted as received). Returns the bytes it reported (nil without progress).
    @MainActor
    static func loadUntilSent(_ run: CheckRun, _ model: any ModelUnderTest, _ source: ConformanceSource, _ name: String,
                              bytes: Int) async throws -> Int? {
        model.load()
        try run.expectPhase(model, "loading", after: "load() of \(name)")
        try await run.server.counters.waitUntil(timeout: .seconds(30)) { $0.bodyBytesSent(for: source.url.path) >= bytes }
        var received: Int?
        if run.subject.capabilities.contains(.progress) {
            _ = await waitUntil(timeout: .seconds(10)) {
                if case .loading(let count?, _, _, _) = model.phase { received = count }
                return (received ?? 0) >= bytes - (1 << 20)
            }
        }
        return received
    }

    @MainActor
    static func cancelMidStreamEndsTransferAndDecode(_ run: CheckRun, _ loader: any LoaderUnderTest) async throws {
        let image = try StreamedImage.largePNG(width: 4096, height: 2048)
        let holdAt = image.bytes.count / 2
        let gate = Gate()
        let source = run.route("large.png", Route(body: image.bytes, contentType: image.contentType, faults: Faults(
            stallAfterBytes: holdAt, gate: gate, headers: ["Cache-Control": CheckRun.cacheableForADay])))
        let counters = run.server.counters
        let (model, recorder) = run.model(loader, source)
        let liveBefore = loader.lifetime?.liveDecodedBytes
        let baseline = HeapUsage.bytesInUse()
        let received = try await loadUntilSent(run, model, source, "large.png", bytes: holdAt)
        let during = HeapUsage.bytesInUse()
        let closedBefore = counters.connectionsClosedByClient
        let publishedBefore = recorder.count
        model.cancel()
        try run.expectPhase(model, "empty", after: "cancel() mid-stream")
        let closed = (try? await counters.waitUntil(timeout: .seconds(5)) { $0.connectionsClosedByClient > closedBefore }) != nil
        // The heap read is not free, so it is polled every 20 ms, for 5 s at most.
        let limit = image.decodedByteCount / 4
        var after = HeapUsage.bytesInUse()
        let deadline = ContinuousClock.now + .seconds(5)
        while HeapUsage.seesFrees, let now = after, let before = baseline, now - before >= limit, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
            after = HeapUsage.bytesInUse()
        }
        var liveAfter = loader.lifetime?.liveDecodedBytes
        if let liveBefore {
            _ = await waitUntil(timeout: .seconds(5)) {
                liveAfter = loader.lifetime?.liveDecodedBytes
                return (liveAfter ?? 0) <= liveBefore
            }
        }
        gate.open()
        await run.settle()
        let late = recorder.phases(from: publishedBefore).filter { $0.name != "empty" }
        // What the stream wrote (a disk cache's copy of the body) goes with it; a disk cache's
        // own directory is DISK-1..3's business.
        let scanned = run.subject.capabilities.contains(.diskCache)
            ? [run.context.temporaryDirectory] : [run.context.temporaryDirectory, run.context.cacheDirectory]
        var left: [DirectoryScan.File] = []
        _ = await waitUntil(timeout: .seconds(5)) {
            left = scanned.flatMap { (try? DirectoryScan.files(in: $0)) ?? [] }
            return left.isEmpty
        }
        func growth(_ value: Int?) -> String {
            guard let value, let baseline else { return "unknown" }
            return String(value - baseline)
        }
        run.note("cancel after \(holdAt) of \(image.bytes.count) bytes sent\(received.map { " (\($0) reported received)" } ?? ""); "
                 + "\(HeapUsage.source) growth before the cancel \(growth(during)), after \(growth(after)) (decoded size "
                 + "\(image.decodedByteCount)); live decoded bytes \(liveBefore.map(String.init) ?? "n/a") → "
                 + "\(liveAfter.map(String.init) ?? "n/a"); connection closed by the client: \(closed); files left "
                 + "\(left.map(\.url.lastPathComponent)); phases \(recorder.transcript)")
        try run.expect(closed, "the server did not see the connection closed within 5 s of cancel() mid-stream: cancel the transfer "
                       + "with the decode (close the connection or reset the stream), do not leave it open and unread")
        try run.expect(late.isEmpty, "after cancel() mid-stream the model published \(late): nothing of a cancelled attempt is published")
        guard let after, let baseline else { throw CheckFailed(reason: "the process's memory use could not be read") }
        if HeapUsage.seesFrees {
            try run.expect(after - baseline < limit, "5 s after cancel() mid-stream the process still held \(after - baseline) more bytes "
                           + "than before the load (the image is \(image.decodedByteCount) bytes decoded): stop the decoder and free its "
                           + "output and buffers when the transfer is cancelled")
        } else {
            // Under a sanitizer only RSS can be read, and its allocator keeps freed pages resident
            // (CI's ThreadSanitizer run saw 16 MiB stay): the loader's live decoded bytes judge it.
            run.note("\(HeapUsage.source) cannot show memory given back: the release is judged by the live decoded bytes only")
        }
        try run.expect(left.isEmpty, "\(left.count) file(s) left 5 s after cancel() mid-stream (\(left.map(\.url.lastPathComponent))): "
                       + "delete what a cancelled stream wrote")
        if let liveBefore, let liveAfter {
            try run.expect(liveAfter <= liveBefore, "the loader's live decoded bytes were \(liveAfter) 5 s after cancel(), \(liveBefore) "
                           + "before the load: the cancelled decode's pixels are still alive; release them when the decode stops")
        }
    }
}
