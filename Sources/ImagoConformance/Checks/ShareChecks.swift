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
            gate.open()
            try await run.expectTerminal(recorder, "load a")
            let decodes = loader.decodeCount
            model.load()
            await run.settle()
            run.note("same key: \(recorder.transcript), requests \(run.requests(a)), decodes \(loader.decodeCount)")
            try run.expect(run.requests(a) == 1, "\(run.requests(a)) requests for one key: load() while the same source loads or shows its image must do nothing")
            try run.expect(loader.decodeCount == decodes, "a load() after success decoded again: load() on a model that shows its image must not start a new attempt")
            try run.expect(!recorder.phases.contains { $0.failure != nil }, "a repeated load() published a failure: ignore load() while loading; never fail it")

            let holdA = Gate()
            let slowA = run.route("slow-a.png", run.images.small, faults: Faults(gate: holdA))
            let b = run.route("b.png", run.images.other)
            let (switching, switchingRecorder) = run.model(try run.loader(), slowA)
            switching.load()
            try await holdA.waitUntilHeld()
            switching.setSource(b)
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
            run.note("requests \(run.requests(source)), decodes \(loader.decodeCount), phases \(models.map { $0.0.phase.description })")
            for (model, _) in models { try run.expectSuccess(model.phase, run.images.small, "shared load") }
            try run.expect(run.requests(source) == 1, "\(run.requests(source)) requests for 5 concurrent loads: coalesce in-flight loads by key (one shared task per key, with a subscriber count)")
            try run.expect(loader.decodeCount == 1, "\(loader.decodeCount) decodes for 5 concurrent loads: decode once per key and share the result among its subscribers")
        },
        ConformanceCheck("SHARE-3", "Cancelling some subscribers keeps the fetch; cancelling all cancels it.") { run in
            let loader = try run.loader()
            let (gate, _, models) = try await run.startHeldLoad("shared.png", run.images.small, loader: loader, models: 3)
            models[0].0.cancel()
            models[1].0.cancel()
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
            let loader = try run.loader()
            let (gate, source, firsts) = try await run.startHeldLoad("rejoin.png", run.images.small, loader: loader)
            firsts[0].model.cancel()
            let (second, recorder) = run.model(loader, source)
            second.load()
            gate.open()
            try await run.expectTerminal(recorder, "rejoining load")
            run.note("rejoining subscriber \(recorder.transcript), requests \(run.requests(source))")
            try run.expectSuccess(second.phase, run.images.small, "rejoining load")
        },
    ]
}
