import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let orderChecks: [ConformanceCheck] = [
        ConformanceCheck("ORDER-1", "Publications on the declared actor, progress before the terminal phase.") { run in
            let loader = try run.loader()
            let big = run.images.big
            let drip = run.route("drip.png", big, faults: Faults(bytesPerSecond: big.bytes.count * 4))
            let missing = run.route("missing.png", Route(body: Array("gone".utf8), faults: Faults(status: 404)))
            var offMain = 0
            for source in [drip, missing] {
                let (_, recorder) = try await run.loadToEnd(loader, source, source.url.lastPathComponent)
                await run.settle()
                run.note("\(source.url.lastPathComponent): \(recorder.count) phases, \(recorder.offMainCount) off the main thread")
                offMain += recorder.offMainCount
                try run.expect(recorder.phases.last?.isTerminal == true, "published after the terminal phase: \(recorder.transcript); nothing may follow success or failure (a late progress callback?)")
            }
            try run.expect(offMain == 0, "\(offMain) publications off the main actor: publish every phase on the main actor (a @MainActor model, or MainActor.run around each publication)")
        },
        ConformanceCheck("ORDER-2", "Observers get every phase in order; a late one first receives the current phase.") { run in
            let loader = try run.loader()
            // Several phases in one main-actor turn (a source change, a load, a cancel, a load):
            // the observer must get each phase the model showed after each call, in order, not
            // only the latest of the turn.
            let (burst, burstRecorder) = try await run.loadToEnd(loader, run.route("first.png", run.images.tiny1),
                                                                 "load of first.png")
            burst.setSource(run.route("burst.png", run.images.tiny2))
            burst.load()
            burst.cancel()
            burst.load()
            try await run.expectTerminal(burstRecorder, count: 2, "load of burst.png, cancelled and loaded again in one turn")
            run.note("calls in one turn: \(burstRecorder.transcript)")
            try await run.expectObserverKeptUp(burst, burstRecorder)

            let (gate, _, models) = try await run.startHeldLoad("late.png", run.images.small, loader: loader)
            let (model, recorder) = models[0]
            try run.expect(model.phase.name == "loading", "load(): the phase while the response is held is \(model.phase)")
            // A late observer through `observe(_:)` and, when the model has one, through its
            // public stream, both attached in one main-actor turn: both must start with the
            // current phase and then see exactly what the first observer sees.
            let whileLoading = LateObservers(model, after: recorder)
            defer { whileLoading.stop() }
            try await whileLoading.expectCurrentFirst(model.phase, "an observer attached while loading", run)
            gate.open()
            try await run.expectTerminal(recorder, "load of late.png after its gate opened")
            try await whileLoading.expectSameAsEarlier(recorder, "an observer attached while loading", run)

            let afterEnd = LateObservers(model, after: recorder)
            defer { afterEnd.stop() }
            try await afterEnd.expectCurrentFirst(model.phase, "an observer attached after the terminal phase", run)
            // Then a later load of another source: the late observers see it in order too.
            model.setSource(run.route("next.png", run.images.other))
            model.load()
            try await run.expectTerminal(recorder, count: 2, "load of next.png after setSource(_:)")
            try run.expectSuccess(model.phase, run.images.other, "load of next.png after setSource(_:)")
            try await run.expectObserverKeptUp(model, recorder)
            try await afterEnd.expectSameAsEarlier(recorder, "an observer attached after the terminal phase", run)
            run.note("first observer \(recorder.transcript); attached while loading \(whileLoading.transcript); "
                     + "after the end \(afterEnd.transcript)")
        },
    ]

    static let progressChecks: [ConformanceCheck] = [
        ConformanceCheck("PROGRESS-1", "Progress never decreases, stays within the total, and unknown stays unknown.",
                         requires: .progress) { run in
            let loader = try run.loader()
            let big = run.images.big
            let drip = run.route("drip.png", big, faults: Faults(bytesPerSecond: big.bytes.count * 4))
            let chunked = run.route("chunked.png", big, faults: Faults(bytesPerSecond: big.bytes.count * 4, chunked: true))
            for (source, total) in [(drip, Optional(big.bytes.count)), (chunked, nil)] {
                let (_, recorder) = try await run.loadToEnd(loader, source, source.url.lastPathComponent)
                let reports = recorder.phases.compactMap { phase -> (Int, Int?)? in
                    if case .loading(let received?, let expected, _, _) = phase { return (received, expected) }
                    return nil
                }
                run.note("\(source.url.lastPathComponent): \(reports.count) reports, last \(reports.last.map { "\($0.0)/\($0.1.map(String.init) ?? "?")" } ?? "none")")
                try run.expect(reports.count >= 2, "\(source.url.lastPathComponent): fewer than 2 progress reports for a throttled body: publish loading(received:expected:) as bytes arrive, or do not declare .progress")
                let received = reports.map(\.0)
                try run.expect(received == received.sorted(), "completed bytes decreased: \(received); report the bytes received so far in this attempt, never reset them")
                for (done, expected) in reports {
                    try run.expect(expected == total, "total reported as \(expected.map(String.init) ?? "unknown"), is \(total.map(String.init) ?? "unknown"): report the Content-Length, nil when there is none (chunked)")
                    if let expected { try run.expect(done <= expected, "\(done) of \(expected) bytes: received must never exceed the total") }
                }
            }
        },
    ]
}
