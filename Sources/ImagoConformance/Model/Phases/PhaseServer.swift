import ImagoTestServer

/// The server side of one phase-model replay: a route per source whose requests are held until
/// the sequence answers them. The answer of a held request is fixed when it arrives (the server
/// plans a response from its route), so each source's route is set in advance for the next
/// `respond` of that source in the sequence, and replaced, with a new gate, right after it.
@MainActor
final class PhaseServer {
    private let run: CheckRun
    private let trial: Int
    /// Each source's answers, in the order the sequence gives them.
    private var answers: [ModelSource: [ServerOutcome]]
    private var gates: [ModelSource: Gate] = [:]
    /// Requests each source had when its current gate was installed.
    private var requestsBeforeGate: [ModelSource: Int] = [:]
    private(set) var sources: [ModelSource: ConformanceSource] = [:]
    /// The image each source serves when it answers with `.image`.
    private let images: [ModelSource: ConformanceImage]

    init(run: CheckRun, trial: Int, operations: [PhaseOperation]) throws {
        self.run = run
        self.trial = trial
        // For a loader with previews, B is the Adam7-interlaced PNG PREVIEW-1 serves (320×240,
        // stored, 7 passes, about 300 KB, so it arrives in several pieces): its previews are
        // judged wherever a sequence makes them (PREVIEW-1), though none is required.
        let b = run.subject.capabilities.contains(.progressivePreviews)
            ? try ConformanceImage(StreamedImage.png(seed: 42, width: 320, height: 240, interlaced: true))
            : run.images.other
        images = [.a: run.images.small, .b: b]
        var answers: [ModelSource: [ServerOutcome]] = [:]
        for case .respond(let source, let outcome) in operations { answers[source, default: []].append(outcome) }
        self.answers = answers
        for source in ModelSource.allCases { install(source) }
    }

    /// The image each source serves when it answers with `.image`: A the suite's `small` PNG, B
    /// its `other` one, or for a loader with previews an interlaced PNG.
    func image(_ source: ModelSource) -> ConformanceImage { images[source]! }

    /// Releases every request held for `source` with its planned answer, then holds the next ones.
    func respond(_ source: ModelSource) {
        gates[source]?.open()
        if !(answers[source]?.isEmpty ?? true) { answers[source]?.removeFirst() }
        install(source)
    }

    /// Waits until every request that reached the server for `source` is held at its gate, so an
    /// answer releases them all (the timeout only turns a hang into a harness failure).
    func waitUntilHeld(_ source: ModelSource) async {
        let arrived = run.requests(sources[source]!) - requestsBeforeGate[source, default: 0]
        guard arrived > 0, let gate = gates[source] else { return }
        _ = await waitUntil(timeout: .seconds(5)) { gate.totalHeld >= arrived }
    }

    /// Lets every held response go, so nothing waits after the replay.
    func releaseAll() {
        for gate in gates.values { gate.open() }
    }

    private func install(_ source: ModelSource) {
        let gate = Gate()
        gates[source] = gate
        let name = "t\(trial)-\(source)".lowercased()
        let image = image(source)
        var route = Route(body: image.bytes, contentType: "image/png",
                          faults: Faults(gate: gate, headers: ["Cache-Control": CheckRun.cacheableForADay]))
        switch answers[source]?.first ?? .image {
        case .image: break
        // A failing status carries no freshness: a loader with a disk cache may remember a 404
        // whose response gives it some (ERR-4), which this model does not predict.
        case .notFound:
            route.faults?.status = 404
            route.faults?.headers = [:]
        case .unavailable:
            route.faults?.status = 503
            route.faults?.headers = [:]
        // A few hundred bytes: a loader that resumes cut transfers (Range) would need more answers
        // than a sequence has to finish the image.
        case .truncated: route.faults?.closeAfterBytes = min(256, image.bytes.count / 4)
        case .truncatedChunked:
            route.faults?.closeAfterBytes = min(256, image.bytes.count / 4)
            route.faults?.chunked = true
        case .empty: route.body = []
        case .notAnImage: route.body = Array("These bytes are no image.".utf8)
        }
        let registered = run.route(name, route)
        sources[source] = registered
        requestsBeforeGate[source] = run.requests(registered)
    }
}
