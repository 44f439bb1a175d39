/// A phase as the reference model predicts it: the values the rules fix (an origin, a failure's
/// category, whose image), not those they leave open (progress, placeholders, previews).
enum ExpectedPhase: Hashable, CustomStringConvertible {
    case empty
    case loading
    case success(ObservedOrigin, ModelSource)
    case failure(FailureCategory)

    /// The failure categories the rules distinguish; a transport error's and a decoding error's
    /// messages are the loader's own.
    enum FailureCategory: Hashable, CustomStringConvertible {
        case missingSource, httpStatus(Int), decoding, emptyData, transport

        func matches(_ failure: ObservedFailure) -> Bool {
            switch (self, failure) {
            case (.missingSource, .missingSource), (.decoding, .decoding), (.emptyData, .emptyData),
                 (.transport, .transport): true
            case (.httpStatus(let expected), .httpStatus(let observed)): expected == observed
            default: false
            }
        }

        var description: String {
            switch self {
            case .missingSource: "missingSource"
            case .httpStatus(let code): "httpStatus(\(code))"
            case .decoding: "decoding(…)"
            case .emptyData: "emptyData"
            case .transport: "transport(…)"
            }
        }
    }

    var isTerminal: Bool {
        switch self {
        case .success, .failure: true
        case .empty, .loading: false
        }
    }

    /// Whether `phase` is this one; `images` gives each source's fingerprint.
    func matches(_ phase: ObservedPhase, images: [ModelSource: ImageFingerprint]) -> Bool {
        switch (self, phase) {
        case (.empty, .empty), (.loading, .loading): true
        case (.success(let origin, let source), .success(let observedOrigin, let image)):
            origin == observedOrigin && images[source] == image
        case (.failure(let category), .failure(let failure)): category.matches(failure)
        default: false
        }
    }

    var description: String {
        switch self {
        case .empty: "empty"
        case .loading: "loading"
        case .success(let origin, let source): "success(\(origin), \(source)'s image)"
        case .failure(let category): "failure(\(category))"
        }
    }
}

/// One phase the model expects a model under test to publish, with the rule that demands it.
struct Expected: Hashable {
    let phase: ExpectedPhase
    let rule: String
}

/// Published phases as the model compares them: consecutive `loading` phases fold into one
/// (progress and previews are the loader's to publish as often as it likes), and so do
/// consecutive `empty` phases (a reset of a model that shows nothing changes nothing).
func folded(_ phases: [ObservedPhase]) -> [ObservedPhase] {
    var result: [ObservedPhase] = []
    for phase in phases {
        if let last = result.last, last.name == phase.name, phase.name == "loading" || phase.name == "empty" { continue }
        result.append(phase)
    }
    return result
}

/// The phases an expected list folds to: the same folding as `folded(_:)`.
func folded(_ expected: [Expected]) -> [Expected] {
    var result: [Expected] = []
    for item in expected {
        if let last = result.last, last.phase == item.phase, item.phase == .loading || item.phase == .empty { continue }
        result.append(item)
    }
    return result
}
