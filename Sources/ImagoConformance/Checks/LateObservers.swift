/// ORDER-2's late subscribers: one through `observe(_:)` and, when the model has a public stream,
/// one through it, attached together in one main-actor turn after an earlier observer.
@MainActor
final class LateObservers {
    private let callback: PhaseRecorder
    private let stream: StreamRecorder?
    /// How many phases the earlier observer had seen when these attached.
    private let earlierCount: Int

    init(_ model: any ModelUnderTest, after earlier: PhaseRecorder) {
        earlierCount = earlier.count
        callback = PhaseRecorder(model)
        stream = model.phases.map(StreamRecorder.init)
    }

    /// Both must deliver `current` first (a terminal phase included).
    func expectCurrentFirst(_ current: ObservedPhase, _ what: String, _ run: CheckRun) async throws {
        let gotCallback = await callback.waitUntil { !$0.isEmpty }
        try run.expect(gotCallback && callback.phases.first == current,
                       "\(what) through observe(_:) first got \(callback.phases.first?.description ?? "nothing"), "
                       + "the current phase is \(current)")
        guard let stream else { return }
        let gotStream = await stream.waitUntil { !$0.isEmpty }
        try run.expect(gotStream && stream.phases.first == current,
                       "\(what) through the public phases stream first got \(stream.phases.first?.description ?? "nothing"), "
                       + "the current phase is \(current)")
    }

    /// After the current phase, both must see exactly what the earlier observer saw since they
    /// attached, in order.
    func expectSameAsEarlier(_ earlier: PhaseRecorder, _ what: String, _ run: CheckRun) async throws {
        let expected = Array(earlier.phases.dropFirst(earlierCount))
        try run.expect(Array(callback.phases.dropFirst()) == expected,
                       "\(what) through observe(_:) saw \(callback.transcript) after the current phase; "
                       + "the first observer saw \(expected)")
        guard let stream else { return }
        let complete = await stream.waitUntil { $0.count >= expected.count + 1 }
        try run.expect(complete && Array(stream.phases.dropFirst()) == expected,
                       "\(what) through the public phases stream saw \(stream.transcript); the first observer saw "
                       + "\(expected) after it attached")
    }

    var transcript: String {
        callback.transcript + (stream.map { " (stream \($0.transcript))" } ?? " (no stream)")
    }

    func stop() { stream?.stop() }
}
