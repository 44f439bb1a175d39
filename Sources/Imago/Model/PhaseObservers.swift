/// The model's subscribers: AsyncStreams and synchronous callbacks; each first gets the
/// current phase.
@MainActor
final class PhaseObservers {
    private var continuations: [Int: AsyncStream<ImagePhase>.Continuation] = [:]
    private var callbacks: [@MainActor (ImagePhase) -> Void] = []
    private var nextID = 0

    func observe(startingWith current: ImagePhase, _ callback: @escaping @MainActor (ImagePhase) -> Void) {
        callback(current)
        callbacks.append(callback)
    }

    deinit {
        for continuation in continuations.values { continuation.finish() }
    }

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
        for callback in callbacks { callback(phase) }
        for continuation in continuations.values { continuation.yield(phase) }
    }
}
