import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let shareChecks: [ConformanceCheck] = [
        ConformanceCheck("SHARE-1", "Repeated load() of one key makes no new request; another key is never ignored.") { run in
            let gate = Gate()
            let a = run.route("a.png", run.images.small, faults: Faults(gate: gate))
            let loader = try run.loader()
            let (model, recorder) = run.model(loader, a)
            model.load()
            model.load()
            try await gate.waitUntilHeld()
            model.load()
            try run.expectPhase(model, "loading", after: "a repeated load() while the request is held")
            gate.open()
            try await run.expectTerminal(recorder, "load of a.png once its gate opened")
            let decodes = await loader.decodeCount
            model.load()
            await run.settle()
            let decodesAfter = await loader.decodeCount
            run.note("same key: \(recorder.transcript), requests \(run.requests(a)), decodes \(decodesAfter)")
            try run.expect(run.requests(a) == 1, "\(run.requests(a)) requests for one key: load() while the same source loads or shows its image must do nothing")
            try run.expect(decodesAfter == decodes, "a load() after success decoded again: load() on a model that shows its image must not start a new attempt")
            try run.expect(!recorder.phases.contains { $0.failure != nil }, "a repeated load() published a failure: ignore load() while loading; never fail it")

            let holdA = Gate()
            let slowA = run.route("slow-a.png", run.images.small, faults: Faults(gate: holdA))
            let b = run.route("b.png", run.images.other)
            let (switching, switchingRecorder) = run.model(try run.loader(), slowA)
            switching.load()
            try await holdA.waitUntilHeld()
            try run.changeSource(switching, to: b, recorder: switchingRecorder, expecting: run.images.other,
                                 "setSource(b) while a loads")
            switching.load()
            let sawB = await switchingRecorder.waitUntil { $0.last?.image == run.images.other.fingerprint }
            holdA.open()
            run.note("other key: \(switchingRecorder.transcript), requests for b \(run.requests(b))")
            try run.expect(sawB && run.requests(b) == 1, "load() of another key while one loads was ignored: a guard against repeated load() must compare the source, not only whether something loads")
        },
        ConformanceCheck("SHARE-2", "N concurrent loads of one key: one request, one decode, identical pixels.") { run in
            let loader = try run.loader()
            let (gate, source, models) = try await run.startHeldLoad("shared.png", run.images.small, loader: loader, models: 5)
            gate.open()
            for (_, recorder) in models { try await run.expectTerminal(recorder, "shared load") }
            let decodes = await loader.decodeCount
            run.note("requests \(run.requests(source)), decodes \(decodes), phases \(models.map { $0.0.phase.description })")
            for (model, _) in models { try run.expectSuccess(model.phase, run.images.small, "shared load") }
            try run.expect(run.requests(source) == 1, "\(run.requests(source)) requests for 5 concurrent loads: coalesce in-flight loads by key (one shared task per key, with a subscriber count)")
            try run.expect(decodes == 1, "\(decodes) decodes for 5 concurrent loads: decode once per key and share the result among its subscribers")
        },
        ConformanceCheck("SHARE-3", "Cancelling some subscribers keeps the fetch; cancelling all cancels it.") { run in
            let loader = try run.loader()
            let (gate, _, models) = try await run.startHeldLoad("shared.png", run.images.small, loader: loader, models: 3)
            models[0].0.cancel()
            models[1].0.cancel()
            try run.expectPhase(models[0].0, "empty", after: "cancel() of subscriber 1 of 3")
            try run.expectPhase(models[1].0, "empty", after: "cancel() of subscriber 2 of 3")
            try run.expectPhase(models[2].0, "loading", after: "the other two subscribers cancelled")
            gate.open()
            try await run.expectTerminal(models[2].1, "remaining subscriber")
            run.note("remaining subscriber \(models[2].1.transcript)")
            try run.expectSuccess(models[2].0.phase, run.images.small, "remaining subscriber")

            let stall = Gate()
            let big = run.images.big
            let abandoned = run.route("abandoned.png", big, faults: Faults(stallAfterBytes: big.bytes.count / 2, gate: stall))
            let closedBefore = run.server.counters.connectionsClosedByClient
            let leaving = (0..<3).map { _ in run.model(loader, abandoned) }
            for (model, _) in leaving { model.load() }
            try await run.server.counters.waitUntil { $0.bodyBytesSent(for: abandoned.url.path) >= big.bytes.count / 2 }
            for (model, _) in leaving { model.cancel() }
            let closed = (try? await run.server.counters.waitUntil(timeout: .seconds(5)) {
                $0.connectionsClosedByClient > closedBefore
            }) != nil
            stall.open()
            run.note("all cancelled: connection closed by client \(closed)")
            try run.expect(closed, "cancelling every subscriber did not cancel the transport request: when the last subscriber leaves, cancel the URLSession or HTTP task itself, not only the Swift task awaiting it")
        },
        ConformanceCheck("SHARE-4", "Joining right after everyone cancelled gets a success.") { run in
            // The server holds every response head, so the torn-down work is still waiting on it
            // when the rejoiner comes: a correct loader starts fresh work, whose own request
            // reaches the server while the gate is still shut; a loader that attaches the
            // rejoiner to the torn-down work makes no request and hands it that work's end.
            // When the torn-down work ends is the loader's business (it need not wait for the
            // server), so the race is run in several rounds, the rejoiner coming in the same
            // main-actor turn as the teardown or a few turns after it.
            let loader = try run.loader()
            for round in 0..<Self.rejoinRounds {
                let (gate, source, firsts) = try await run.startHeldLoad("rejoin-\(round).png", run.images.small, loader: loader)
                firsts[0].model.cancel()
                try run.expect(firsts[0].model.phase.failure == nil,
                               "round \(round): cancel() published \(firsts[0].model.phase)")
                for _ in 0..<(round % 4) { await Task.yield() }
                let (second, recorder) = run.model(loader, source)
                second.load()
                try run.expect(second.phase.name == "loading", "round \(round): the rejoining load() published \(second.phase)")
                // Held until the rejoiner's own request is at the server, or it stopped loading
                // without one (ended, or dropped back to empty with the old work's cancellation).
                // The model's own phase, not the observer's last: an observer a turn late (which
                // ORDER-2 judges) must not end the wait before the request had its chance.
                _ = await waitUntil(timeout: .seconds(5)) { gate.totalHeld >= 2 || second.phase.name != "loading" }
                let freshRequest = gate.totalHeld >= 2
                let early = recorder.transcript
                gate.open()
                // Until it ends, or drops back to empty: the sign of a cancellation it was handed.
                let settled = await recorder.waitUntil { phases in
                    phases.last?.isTerminal == true || (phases.count > 2 && phases.last == .empty)
                }
                try run.expect(settled, "round \(round): rejoining load: no terminal phase within 10 s; phases \(recorder.transcript)")
                try run.expect(recorder.phases.last?.isTerminal == true,
                               "round \(round): the rejoiner went back to empty without a terminal phase "
                               + "(\(recorder.transcript)): it was handed the torn-down work's cancellation")
                if round == 0 || second.phase.image == nil {
                    run.note("round \(round): rejoiner before the release \(early), then \(recorder.transcript), "
                             + "requests \(run.requests(source))")
                }
                try run.expect(freshRequest, "round \(round): the rejoiner made no request of its own while the server "
                               + "held everything (phases \(early)): it was attached to the torn-down work, or to "
                               + "work that was not torn down when everyone cancelled")
                try run.expectSuccess(second.phase, run.images.small, "round \(round): rejoining load")
            }
        },
    ]

    /// SHARE-4's rounds: each is a few milliseconds.
    static let rejoinRounds = 24
}
