import Foundation

extension CheckRun {
    /// Makes a model for `source`, loads it and waits for its terminal phase.
    public func loadToEnd(_ loader: any LoaderUnderTest, _ source: ConformanceSource?,
                          _ what: String = "load") async throws -> (model: any ModelUnderTest, recorder: PhaseRecorder) {
        let (model, recorder) = model(loader, source)
        model.load()
        try await expectTerminal(recorder, what)
        return (model, recorder)
    }

    /// Fails unless `phase` is a success showing `image`.
    public func expectSuccess(_ phase: ObservedPhase, _ image: ConformanceImage, origin: ObservedOrigin? = nil,
                              _ what: String) throws {
        guard case .success(let observedOrigin, let fingerprint) = phase else {
            throw CheckFailed(reason: "\(what): expected success, got \(phase)")
        }
        try expect(fingerprint == image.fingerprint, "\(what): pixels \(fingerprint), expected \(image.fingerprint)")
        if let origin {
            try expect(observedOrigin == origin, "\(what): origin \(observedOrigin.rawValue), expected \(origin.rawValue)")
        }
    }

    /// The TRANS-2 edge list.
    static func isLegalEdge(_ from: ObservedPhase, _ to: ObservedPhase) -> Bool {
        switch (from, to) {
        case (_, .empty): true
        case (.empty, .loading), (.loading, .loading), (.loading, .success), (.loading, .failure): true
        case (.empty, .success(.memory, _)): true
        case (.empty, .failure(.missingSource)): true
        case (.success, .loading), (.failure, .loading): true
        default: false
        }
    }

    /// The first illegal edge in `phases`, if any.
    static func firstIllegalEdge(_ phases: [ObservedPhase]) -> String? {
        for (from, to) in zip(phases, phases.dropFirst()) where !isLegalEdge(from, to) {
            return "\(from) → \(to)"
        }
        return nil
    }
}
