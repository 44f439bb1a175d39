import Foundation
import ImagoTestServer

// What the fetch checks (FETCH-1, FETCH-3) compare across strategies: the routes each strategy
// loads, the loads themselves, and the forms of a phase sequence that must agree.

extension ConformanceCheck {
    /// What FETCH-1 and FETCH-3 serve with every strategy: a success, a 404, a truncation and an
    /// empty body.
    @MainActor
    static func strategyRoutes(_ run: CheckRun) -> [ConformanceSource] {
        let big = run.images.big
        return [
            run.route("photo.png", big),
            run.route("missing.png", Route(body: Array("gone".utf8), faults: Faults(status: 404))),
            run.route("cut.png", big, faults: Faults(closeAfterBytes: big.bytes.count / 2)),
            run.route("empty.png", Route(body: [], contentType: "image/png")),
        ]
    }

    /// Loads every route with each strategy (a fresh context, so a fresh cache, per strategy) and
    /// returns each strategy's collapsed sequences, one per route, and the previews it showed.
    @MainActor
    static func compareStrategies(_ run: CheckRun, _ strategies: [LoaderContext.FetchStrategy], routes: [ConformanceSource],
                                  collapse: ([ObservedPhase]) -> String) async throws
        -> [(strategy: LoaderContext.FetchStrategy, sequences: [String])] {
        var outcomes: [(strategy: LoaderContext.FetchStrategy, sequences: [String])] = []
        for strategy in strategies {
            var context = try run.newContext()
            context.fetchStrategy = strategy
            let loader = try run.loader(context)
            var sequences: [String] = []
            var previews: [String] = []
            for source in routes {
                let (_, recorder) = try await run.loadToEnd(loader, source, "\(strategy) \(source.url.lastPathComponent)")
                sequences.append(collapse(recorder.phases))
                let shown = Self.distinctPreviews(recorder.phases)
                if !shown.isEmpty { previews.append("\(source.url.lastPathComponent): \(shown.map(\.detail))") }
            }
            outcomes.append((strategy, sequences))
            run.note("\(strategy): \(sequences)" + (previews.isEmpty ? "" : ", previews (details) \(previews)"))
        }
        return outcomes
    }

    /// The previews of one attempt as they changed: a loading phase that repeats the preview
    /// before it (with later progress, say) adds nothing.
    static func distinctPreviews(_ phases: [ObservedPhase]) -> [ObservedPreview] {
        var shown: [ObservedPreview] = []
        for case let preview? in phases.map(\.preview) where preview != shown.last { shown.append(preview) }
        return shown
    }

    /// FETCH-3's form of a sequence: consecutive `loading` phases folded into one whatever
    /// their progress and previews, every other phase kept (a preview must not add a phase),
    /// the terminal phase in full (a success with its pixels).
    static func collapsedApartFromProgressAndPreviews(_ phases: [ObservedPhase]) -> String {
        var names: [String] = []
        for phase in phases where !(phase.name == "loading" && names.last == "loading") { names.append(phase.name) }
        return names.joined(separator: ">") + " " + terminal(of: phases)
    }

    /// Phase names with consecutive duplicates folded (progress counts differ between
    /// strategies), plus the terminal phase in full.
    static func collapsed(_ phases: [ObservedPhase]) -> String {
        var names: [String] = []
        for phase in phases where names.last != phase.name { names.append(phase.name) }
        return names.joined(separator: ">") + " " + terminal(of: phases)
    }

    /// The terminal phase in full (a success with its pixels), but a transport failure without
    /// its message, which may name the strategy.
    private static func terminal(of phases: [ObservedPhase]) -> String {
        switch phases.last {
        case .failure(.transport)?: "failure(transport)"
        case let last?: last.description
        case nil: ""
        }
    }
}
