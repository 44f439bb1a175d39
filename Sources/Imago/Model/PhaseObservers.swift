/// The model's AsyncStream subscribers; each new stream first gets the current phase.
@MainActor
final class PhaseObservers {
    private var continuations: [Int: AsyncStream<ImagePhase>.Continuation] = [:]
    private var nextID = 0

    func stream(startingWith current: ImagePhase) -> AsyncStream<ImagePhase> {
        let (stream, continuation) = AsyncStream.makeStream(of: ImagePhase.self, bufferingPolicy: .unbounded)
        nextID += 1
        let id = nextID
        continuations[id] = continuation
        continuation.yield(current)
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.continuations[id] = nil }
        }
        return stream
    }

    func send(_ phase: ImagePhase) {
        for continuation in continuations.values { continuation.yield(phase) }
    }
}
