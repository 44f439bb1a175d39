import Foundation
import ImagoTestServer

extension CheckRun {
    /// Makes a model for `source`, loads it and waits for its terminal phase.
    public func loadToEnd(_ loader: any LoaderUnderTest, _ source: ConformanceSource?,
                          _ what: String = "load") async throws -> (model: any ModelUnderTest, recorder: PhaseRecorder) {
        let (model, recorder) = model(loader, source)
        model.load()
        try await expectTerminal(recorder, what)
        return (model, recorder)
    }

    /// Serves `image` behind a closed gate, makes `count` models of `loader` for it, loads them
    /// all, and returns once the server holds the response head.
    public func startHeldLoad(_ name: String, _ image: ConformanceImage, loader: any LoaderUnderTest,
                              models count: Int = 1) async throws
        -> (gate: Gate, source: ConformanceSource, models: [(model: any ModelUnderTest, recorder: PhaseRecorder)]) {
        let gate = Gate()
        let source = route(name, image, faults: Faults(gate: gate))
        let models = (0..<count).map { _ in model(loader, source) }
        for (model, _) in models { model.load() }
        try await gate.waitUntilHeld()
        return (gate, source, models.map { (model: $0.0, recorder: $0.1) })
    }

    /// After a load was abandoned (cancel, source change) and its held response released: waits
    /// until the server either saw the client close the connection or finished sending the
    /// response, and in that case until the loader decoded it (2 s at most), so a late
    /// publication of the abandoned result has had every chance to happen before the settle window.
    public func waitForAbandonedTransfer(_ source: ConformanceSource, loader: any LoaderUnderTest,
                                         closedBefore: Int, decodesBefore: Int) async {
        let path = source.url.path
        _ = try? await server.counters.waitUntil(timeout: .seconds(5)) {
            $0.responsesCompleted(for: path) > 0 || $0.connectionsClosedByClient > closedBefore
        }
        if server.counters.responsesCompleted(for: path) > 0 {
            // A loader that keeps an abandoned result decodes it moments after the last byte; one
            // that drops it, as it must, never does, and pays this wait in full whenever its cancel
            // let the server finish a small body first. Hence 2 s, not the 5 s of the waits for
            // what must happen.
            _ = await waitUntil(timeout: .seconds(2), asking: { await loader.decodeCount > decodesBefore })
        }
        await settle()
    }

    /// Fails unless `recorder` received every phase `model` showed right after each call the
    /// check made on it (since the recorder attached), in order, each within `settleWindow` of
    /// the call returning: an observer that coalesces or lags fails (ORDER-2). Waits up to
    /// `settleWindow` for a late delivery first. Does nothing for a model not made by `model(_:_:)`.
    public func expectObserverKeptUp(_ model: any ModelUnderTest, _ recorder: PhaseRecorder) async throws {
        guard let recording = model as? RecordingModel,
              let violation = await observerViolation(recording.reads, recorder) else { return }
        throw CheckFailed(reason: "observer of \(recording.label): \(violation)", symptom: ObserverFidelity.symptom)
    }

    /// The first phase `recorder` lost or got late of those `reads` holds (see
    /// `ObserverFidelity`), after waiting up to `settleWindow` for a late delivery; nil when it
    /// kept up.
    func observerViolation(_ reads: SynchronousReads, _ recorder: PhaseRecorder) async -> String? {
        let window = settleWindow
        func violation() -> String? {
            ObserverFidelity.violation(reads: reads.reads, delivered: recorder.timedPhases,
                                       attachedAt: recorder.attachedAt, window: window)
        }
        guard violation() != nil else { return nil }
        _ = await waitUntil(timeout: window) { violation() == nil }
        return violation()
    }

    /// Fails unless `model`'s phase right after `step` returned is named `name` ("empty",
    /// "loading", ...): the state the rules require at that moment, not only at the end.
    public func expectPhase(_ model: any ModelUnderTest, _ name: String, after step: String) throws {
        try expect(model.phase.name == name, "right after \(step) the phase is \(model.phase), expected \(name)")
    }

    /// Fails unless `phase` is a success showing `image`. `later` (default nil) is what the
    /// model's observer received after the moment `phase` was read: with it, a success that only
    /// came late is told from none (the hint and symptom say which, see ``CheckResult/symptom``).
    public func expectSuccess(_ phase: ObservedPhase, _ image: ConformanceImage, origin: ObservedOrigin? = nil,
                              later: [ObservedPhase]? = nil, _ what: String) throws {
        guard case .success(let observedOrigin, let fingerprint) = phase else {
            let diagnosis = Diagnosis.notSuccess(phase, later: later)
            throw CheckFailed(reason: "\(what): expected success, got \(phase); \(diagnosis.hint)", symptom: diagnosis.symptom)
        }
        try expect(fingerprint == image.fingerprint, "\(what): pixels \(fingerprint), expected \(image.fingerprint); "
                   + (fingerprint.width == image.fingerprint.width && fingerprint.height == image.fingerprint.height
                      ? "the size is right, the pixels are not: the decoded bytes differ (a body cut or decoded wrongly), or the fingerprint is not of the tightly packed RGBA rows (ImageFingerprint(width:height:rgba:))"
                      : "another size: another image, or another scaling than the source's maxPixelSize asks (a cache entry of another source or size?)"),
                   symptom: "a success with the wrong pixels")
        if let origin {
            try expect(observedOrigin == origin, "\(what): origin \(observedOrigin.rawValue), expected \(origin.rawValue); "
                       + Self.originHint(observed: observedOrigin, expected: origin),
                       symptom: "origin \(observedOrigin.rawValue) where \(origin.rawValue) was expected")
        }
    }

    /// What an unexpected origin suggests: a fetch where a cache should have answered is a miss
    /// (nothing stored, evicted, or another key), not a labelling mistake; the other way round,
    /// or between two caches, the label may be wrong.
    private static func originHint(observed: ObservedOrigin, expected: ObservedOrigin) -> String {
        switch (observed, expected) {
        case (.network, .memory), (.network, .disk):
            "the image was fetched where the \(expected.rawValue) cache should have answered: a miss (not stored, "
                + "evicted, or looked up under another key), unless the adapter labels every success network"
        default:
            "report where this success really came from (memory hit, disk cache, or a fetch); the request count "
                + "in the evidence says whether it fetched"
        }
    }

    /// The TRANS-2 edge list; with `.reloadsOnSourceChange` a source change's memory hit may
    /// also replace a success or a failure directly.
    static func isLegalEdge(_ from: ObservedPhase, _ to: ObservedPhase, reloadsOnSourceChange: Bool = false) -> Bool {
        switch (from, to) {
        case (.success, .success(.memory, _)), (.failure, .success(.memory, _)): reloadsOnSourceChange
        case (_, .empty): true
        case (.empty, .loading), (.loading, .loading), (.loading, .success), (.loading, .failure): true
        case (.empty, .success(.memory, _)): true
        case (.empty, .failure(.missingSource)): true
        case (.success, .loading), (.failure, .loading): true
        default: false
        }
    }

    /// The first illegal edge in `phases`, if any.
    static func firstIllegalEdge(_ phases: [ObservedPhase], reloadsOnSourceChange: Bool = false) -> String? {
        for (from, to) in zip(phases, phases.dropFirst())
        where !isLegalEdge(from, to, reloadsOnSourceChange: reloadsOnSourceChange) {
            return "\(from) → \(to)"
        }
        return nil
    }
}
