// The state the reference model keeps per model and per shared work, and what one operation
// asks of the loader under test: the model's vocabulary, apart from its transitions.

extension PhaseModel {
    /// One model under test as the reference sees it.
    struct Model {
        var source: ModelSource?
        var phase: ExpectedPhase = .empty
        /// The shared work this model is subscribed to while `loading`.
        var work: Int?
        var alive = true
        /// Every phase it must publish, in order (folded as the observed ones are).
        var expected: [Expected] = [Expected(phase: .empty, rule: "INIT-1")]
        /// The rule a further publication would break now.
        var silence = "INIT-1"
        /// Late observers, by where they joined `expected`: each must receive the phase current
        /// then (`expected[start]`) and everything after it (ORDER-2).
        var lateObservers: [Int] = []
    }

    /// Work shared by the models loading one source (SHARE-2): one request, one decode.
    struct Work {
        let source: ModelSource
        var subscribers: Set<Int>
        /// Automatic retries it may still make (RETRY-1).
        var retriesLeft: Int
        /// Waiting on the injected clock between tries (no request open): RETRY-2.
        var backingOff = false
    }

    /// What an operation asks of the loader under test, beyond the phases in `models`.
    struct Outcome {
        /// Why the operation is skipped (a situation the rules do not settle), or nil.
        var skipped: String?
        /// The phases a model must show when the call returns (model number → allowed phases).
        var phaseOnReturn: [Int: (allowed: [ExpectedPhase], rule: String)] = [:]
        /// The rule a wrong request count for the operation's source breaks (nil: the operation
        /// touches no source's requests, and an earlier operation's rule stands).
        var requestRule: String?
        /// The source whose requests the operation may change (set by `apply`).
        var requestSource: ModelSource?
        /// The rule a decode count outside `decodes` breaks after this operation.
        var decodeRule = "SHARE-2"
    }
}
