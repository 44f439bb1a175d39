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

    init(run: CheckRun, trial: Int, operations: [PhaseOperation]) {
        self.run = run
        self.trial = trial
        var answers: [ModelSource: [ServerOutcome]] = [:]
        for case .respond(let source, let outcome) in operations { answers[source, default: []].append(outcome) }
        self.answers = answers
        for source in ModelSource.allCases { install(source) }
    }

    /// The image each source serves when it answers with `.image`.
    func image(_ source: ModelSource) -> ConformanceImage { source == .a ? run.images.small : run.images.other }

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
        case .notFound: route.faults?.status = 404
        case .unavailable: route.faults?.status = 503
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
