import Foundation
import ImagoTestServer

extension ConformanceCheck {
    /// PREVIEW-1, made deterministic by where the server holds the body rather than by timing:
    /// each image is held a little after the start of a scan (JPEG) or pass (PNG) whose
    /// predecessors are complete (`StreamedImage.scanStarts`), so a preview is due while nothing
    /// more arrives; the check waits for it (10 s at most), opens the gate and lets the load end.
    /// The rate is judged only with bounds that hold whatever the main actor's delays: every
    /// preview was made after `load()` and reached the observer after it was made, so the
    /// previews seen by the time the last one arrived were all made within that span, and at
    /// most one per `previewInterval` fits in it.
    static let previewChecks: [ConformanceCheck] = [
        ConformanceCheck("PREVIEW-1", "Previews come only inside loading, in increasing detail, at a bounded rate, no larger "
                            + "than asked; the attempt still ends in exactly one terminal phase.",
                         requires: .progressivePreviews) { run in
            let streams = run.subject.capabilities.contains(.decodesWhileStreaming)
            let targetSize = run.subject.capabilities.contains(.targetSize) ? 192 : nil
            let jpeg = try StreamedImage.jpeg(seed: 41, width: 384, height: 256, progressive: true)
            let png = try StreamedImage.png(seed: 42, width: 320, height: 240, interlaced: true)
            try run.expect(jpeg.scanStarts.count >= 5 && png.scanStarts.count == 7,
                           "harness: \(jpeg.scanStarts.count) JPEG scans and \(png.scanStarts.count) PNG passes located")

            // Every scan shown (interval zero): order, size, one terminal phase.
            var everyScan = try run.newContext()
            if streams { everyScan.fetchStrategy = .stream }
            everyScan.previewInterval = .zero
            let loader = try run.loader(everyScan)
            // JPEG held after scans 1-3, at the target size when the loader takes one; PNG held
            // after passes 1-5, full size.
            let loads = [
                try await Self.previewedLoad(run, loader, "progressive.jpg", jpeg, holdAt: jpeg.offset(afterStartOfScan: 3),
                                             complete: "3 of \(jpeg.scanStarts.count) scans", maxPixelSize: targetSize),
                try await Self.previewedLoad(run, loader, "interlaced.png", png, holdAt: png.offset(afterStartOfScan: 5),
                                             complete: "5 of 7 passes", maxPixelSize: nil),
            ]
            for load in loads { try Self.judge(run, load) }

            // A bounded rate: the interval asked for, against the scans that completed together
            // while the body was held.
            let interval = Duration.milliseconds(500)
            var bounded = try run.newContext()
            if streams { bounded.fetchStrategy = .stream }
            bounded.previewInterval = interval
            let rateLoader = try run.loader(bounded)
            let limited = try await Self.previewedLoad(run, rateLoader, "rate.jpg", jpeg,
                                                       holdAt: jpeg.offset(afterStartOfScan: 4),
                                                       complete: "4 of \(jpeg.scanStarts.count) scans", maxPixelSize: nil)
            try Self.judge(run, limited)
            let timed = limited.recorder.timedPhases
            var shown: [(at: ContinuousClock.Instant, preview: ObservedPreview)] = []
            for (at, phase) in timed { if let preview = phase.preview, preview != shown.last?.preview { shown.append((at, preview)) } }
            if let last = shown.last {
                let span = last.at - limited.started
                let allowed = Int(span / interval) + 1
                run.note("rate.jpg with previewInterval \(interval): \(shown.count) previews made within \(span) of load(), "
                         + "at most \(allowed) allowed")
                try run.expect(shown.count <= allowed, "rate.jpg: \(shown.count) previews (details \(shown.map(\.preview.detail))) "
                               + "were all made within \(span) of load() with LoaderContext.previewInterval \(interval): at most "
                               + "\(allowed) fit; skip (or defer) the previews of scans that complete sooner than the interval")
            }

            // Evidence only: a baseline JPEG has no scans to preview (a loader may still show
            // partial images of it; the rule does not forbid that).
            let baseline = try StreamedImage.jpeg(seed: 43, width: 384, height: 256, progressive: false)
            let source = run.route("baseline.jpg", Route(body: baseline.bytes, contentType: baseline.contentType, faults: Faults(
                bytesPerSecond: baseline.bytes.count * 4, headers: ["Cache-Control": CheckRun.cacheableForADay])))
            let (_, recorder) = try await run.loadToEnd(loader, source, "baseline.jpg")
            run.note("baseline.jpg: previews \(Self.distinctPreviews(recorder.phases).map(\.description)), ends \(recorder.phases.last.map(\.description) ?? "-")")
        },
    ]

    /// One load whose body the server holds at `holdAt` until a preview is published.
    struct PreviewedLoad {
        let name: String
        let image: StreamedImage
        let maxPixelSize: Int?
        let recorder: PhaseRecorder
        /// Just before `load()`.
        let started: ContinuousClock.Instant
    }

    @MainActor
    static func previewedLoad(_ run: CheckRun, _ loader: any LoaderUnderTest, _ name: String, _ image: StreamedImage,
                              holdAt: Int, complete: String, maxPixelSize: Int?) async throws -> PreviewedLoad {
        let gate = Gate()
        let source = run.route(name, Route(body: image.bytes, contentType: image.contentType, faults: Faults(
            stallAfterBytes: holdAt, gate: gate, headers: ["Cache-Control": CheckRun.cacheableForADay])), maxPixelSize: maxPixelSize)
        let (model, recorder) = run.model(loader, source)
        let started = ContinuousClock.now
        model.load()
        try run.expectPhase(model, "loading", after: "load() of \(name)")
        try await run.server.counters.waitUntil(timeout: .seconds(10)) { $0.bodyBytesSent(for: source.url.path) >= holdAt }
        let previewed = await recorder.waitUntil { phases in phases.contains { $0.preview != nil } }
        try run.expect(previewed, "\(name): no preview within 10 s while the server held the body after \(holdAt) of "
                       + "\(image.bytes.count) bytes (\(complete) complete); phases \(recorder.transcript): publish a preview "
                       + "inside loading when a scan or pass completes, or do not declare .progressivePreviews")
        try run.expect(model.phase.name == "loading", "\(name): with the body held after a preview the phase is \(model.phase), expected loading")
        gate.open()
        try await run.expectTerminal(recorder, name)
        // Anything published after the terminal phase has had its chance to show.
        await run.settle()
        return PreviewedLoad(name: name, image: image, maxPixelSize: maxPixelSize, recorder: recorder, started: started)
    }

    /// Exactly one terminal phase and nothing after it, the image at the end, and the previews
    /// in strictly increasing detail, each no larger than the image or the target size.
    @MainActor
    static func judge(_ run: CheckRun, _ load: PreviewedLoad) throws {
        let phases = load.recorder.phases
        let name = load.name
        let shown = distinctPreviews(phases)
        run.note("\(name)\(load.maxPixelSize.map { " at \($0)" } ?? ""): previews \(shown.map(\.description)); "
                 + "phases \(phases.count), ending \(phases.last.map(\.description) ?? "-")")
        let terminals = phases.filter(\.isTerminal)
        try run.expect(terminals.count == 1, "\(name): \(terminals.count) terminal phases (\(terminals)): a preview is "
                       + "published inside loading, never as a success, and the attempt ends once")
        try run.expect(phases.last?.isTerminal == true, "\(name): \(phases.last.map(\.description) ?? "nothing") published after "
                       + "the terminal phase: no preview (nor anything else) after the attempt ended")
        for (earlier, later) in zip(shown, shown.dropFirst()) {
            try run.expect(later.detail > earlier.detail, "\(name): \(earlier) then \(later): each new preview of an attempt must "
                           + "show more detail than the one before (publish scans in order, drop a late older one)")
        }
        let image = load.image
        for preview in shown {
            try run.expect(preview.width >= 1 && preview.height >= 1 && preview.width <= image.width && preview.height <= image.height,
                           "\(name): \(preview) for a \(image.width)x\(image.height) image: a preview is never larger than the image")
            if let limit = load.maxPixelSize {
                try run.expect(max(preview.width, preview.height) <= limit, "\(name): \(preview) for a request of at most \(limit) "
                               + "pixels: scale previews as the final image (at most the target size)")
            }
        }
        guard case .success(_, let pixels)? = phases.last else {
            throw CheckFailed(reason: "\(name): ended in \(phases.last.map(\.description) ?? "nothing"), expected success: a valid "
                              + "progressive image must decode once all of it has arrived")
        }
        if let limit = load.maxPixelSize {
            try run.expect(max(pixels.width, pixels.height) <= limit,
                           "\(name): success \(pixels) for a request of at most \(limit) pixels: honour the target size")
        } else if let exact = image.fingerprint {
            try run.expect(pixels == exact, "\(name): success \(pixels), expected \(exact): the final image is the whole "
                           + "image decoded, not the last preview")
        } else {
            try run.expect(pixels.width == image.width && pixels.height == image.height,
                           "\(name): success \(pixels) for a \(image.width)x\(image.height) image")
        }
    }
}
