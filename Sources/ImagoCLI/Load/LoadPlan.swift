import Foundation
import Imago

/// What one source's loads ended with.
struct SourceOutcome: Sendable {
    let source: String
    /// The terminal phase of its last load (`empty` when cancelled before one).
    let last: ImagePhase
    let succeededLoads: Int
    var succeeded: Bool { if case .success = last { true } else { false } }
}

/// The sources of one `imago load`, each loaded `repetitions` times in order, at most
/// `concurrency` sources at once, every published phase printed as it happens.
struct LoadPlan: Sendable {
    let sources: [String]
    let options: DecodeOptions
    let repetitions: Int
    let concurrency: Int
    /// How many loads of a source identity the disk cache has failed with a remembered 404 or
    /// 410 so far (the run's `rememberedFailure` events), to say so on its failure line.
    let rememberedFailures: @Sendable (String) -> Int

    var loadCount: Int { sources.count * repetitions }

    /// One outcome per source, in the order given. Cancelling the calling task cancels every
    /// load (each model's attempt, and with it the pipeline's work) and starts no new one.
    @MainActor
    func run(_ pipeline: ImagePipeline) async -> [SourceOutcome] {
        await withTaskGroup(of: (Int, SourceOutcome).self) { group in
            var outcomes: [SourceOutcome?] = Array(repeating: nil, count: sources.count)
            var started = 0
            while true {
                // Top up to `concurrency` running sources, unless cancelled (then none starts).
                while started < sources.count, started - outcomes.count(where: { $0 != nil }) < concurrency,
                      !Task.isCancelled {
                    let index = started
                    started += 1
                    let source = sources[index]
                    let plan = self
                    group.addTask {
                        let outcome = await plan.load(source, pipeline)
                        return (index, outcome)
                    }
                }
                guard let finished = await group.next() else { break }
                outcomes[finished.0] = finished.1
            }
            return outcomes.enumerated().map { index, outcome in
                outcome ?? SourceOutcome(source: sources[index], last: .empty, succeededLoads: 0)
            }
        }
    }

    @MainActor
    private func load(_ text: String, _ pipeline: ImagePipeline) async -> SourceOutcome {
        let request = ImageRequest(source: ImageSource(argument: text), options: options)
        var last: ImagePhase = .empty
        var succeeded = 0
        for _ in 0..<repetitions {
            if Task.isCancelled { break }
            last = await loadOnce(request, text, pipeline)
            if case .success = last { succeeded += 1 }
        }
        return SourceOutcome(source: text, last: last, succeededLoads: succeeded)
    }

    @MainActor
    private func loadOnce(_ request: ImageRequest, _ text: String, _ pipeline: ImagePipeline) async -> ImagePhase {
        let model = ImageLoadingModel(pipeline: pipeline, request: request)
        let phases = model.phases
        // A source's loads run one after another, so a new event for it during this one is this one's.
        let rememberedBefore = rememberedFailures(request.source.identity)
        model.load()
        var shownDetail = 0
        for await phase in phases {
            var newPreview = false
            if case .loading(_, _, let preview?) = phase, preview.detail > shownDetail {
                shownDetail = preview.detail
                newPreview = true
            }
            var remembered = false
            if case .failure = phase { remembered = rememberedFailures(request.source.identity) > rememberedBefore }
            printLine(LoadLines.phase(phase, source: text, newPreview: newPreview, rememberedFailure: remembered))
            if phase.isTerminal { return phase }
        }
        // The stream ends early only when this task was cancelled: stop the model's attempt,
        // which cancels the pipeline's work for it (a cancel is never a failure: TRANS-4).
        model.cancel()
        return .empty
    }
}
