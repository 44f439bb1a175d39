import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let transitionChecks: [ConformanceCheck] = [
        ConformanceCheck("TRANS-1", "Exactly one terminal phase per attempt, and nothing of it after.") { run in
            let loader = try run.loader()
            let good = run.route("good.png", run.images.small)
            let missing = run.route("missing.png", Route(body: Array("gone".utf8), contentType: "text/plain",
                                                         faults: Faults(status: 404)))
            for (name, source) in [("success", good), ("failure", missing)] {
                let (_, recorder) = try await run.loadToEnd(loader, source, name)
                await run.settle()
                run.note("\(name): \(recorder.transcript)")
                let terminals = recorder.phases.filter(\.isTerminal).count
                try run.expect(terminals == 1, "\(name): \(terminals) terminal phases, expected 1: publish one success or failure per attempt (look for a second completion path)")
                try run.expect(recorder.phases.last?.isTerminal == true, "\(name): published after the terminal phase: nothing of an attempt may follow its success or failure (a late progress or completion callback?)")
            }
        },
        ConformanceCheck("TRANS-2", "Only legal edges between phases.") { run in
            let loader = try run.loader()
            let a = run.route("a.png", run.images.small)
            let missing = run.route("missing.png", Route(body: Array("gone".utf8), faults: Faults(status: 404)))
            let gate = Gate()
            let held = run.route("held.png", run.images.other, faults: Faults(gate: gate))
            let (model, recorder) = run.model(loader, a)
            model.load()
            try await run.expectTerminal(recorder, "load of a.png")
            model.setSource(missing)
            model.load()
            try await run.expectTerminal(recorder, count: 2, "load of missing.png (serves 404) after a.png's success")
            model.retry()
            try await run.expectTerminal(recorder, count: 3, "retry() of missing.png after its 404")
            model.setSource(held)
            model.load()
            try await gate.waitUntilHeld()
            try run.expectPhase(model, "loading", after: "load() of the held source")
            model.cancel()
            try run.expectPhase(model, "empty", after: "cancel()")
            try run.changeSource(model, to: a, recorder: recorder, expecting: run.images.small, "setSource(a) after the cancel")
            model.load()
            try await run.expectTerminal(recorder, count: 4, "load of a.png again after the cancel")
            gate.open()
            await run.settle()
            run.note("phases \(recorder.transcript)")
            if let edge = CheckRun.firstIllegalEdge(recorder.phases, reloadsOnSourceChange: run.reloadsOnSourceChange) { throw CheckFailed(reason: "illegal edge \(edge): allowed are empty→loading, empty→success(memory), loading→loading|success|failure, anything→empty, success|failure→loading (and success|failure→success(memory) with .reloadsOnSourceChange); start every new attempt with loading, never go between success and failure directly") }
            guard run.subject.capabilities.contains(.memoryCache) else { return }
            // A retry that the memory cache answers (another model loaded the image meanwhile) is
            // still a new attempt: failure → loading → success, never failure → success.
            let flaky = run.route("flaky.png", Route(body: run.images.other.bytes).failFirst(1, with: Faults(status: 503)))
            let (failing, failingRecorder) = run.model(loader, flaky)
            failing.load()
            try await run.expectTerminal(failingRecorder, "first load of flaky (503)")
            let (other, otherRecorder) = run.model(loader, flaky)
            other.load()
            try await run.expectTerminal(otherRecorder, "second model's load of flaky")
            guard other.phase.image != nil, await loader.memoryCache?.contains(flaky) == true else {
                // Failures kept (ERR-4's business) or nothing cached: no hit to retry into.
                run.note("retry answered by the memory cache not checked: the second load ended \(other.phase)")
                return
            }
            failing.retry()
            try await run.expectTerminal(failingRecorder, count: 2, "retry answered by the memory cache")
            run.note("retry answered by the memory cache: \(failingRecorder.transcript)")
            if let edge = CheckRun.firstIllegalEdge(failingRecorder.phases) {
                throw CheckFailed(reason: "illegal edge \(edge) on a retry the memory cache answered: publish loading "
                                  + "before the hit, as for any new attempt")
            }
        },
        ConformanceCheck("TRANS-3", "Nothing of an attempt is published after cancel() returns.") { run in
            let loader = try run.loader()
            let closedBefore = run.server.counters.connectionsClosedByClient
            let (gate, source, models) = try await run.startHeldLoad("held.png", run.images.small, loader: loader)
            let (model, recorder) = models[0]
            model.cancel()
            let afterCancel = model.phase
            let decodesBefore = await loader.decodeCount
            gate.open()
            await run.waitForAbandonedTransfer(source, loader: loader, closedBefore: closedBefore, decodesBefore: decodesBefore)
            run.note("phase after cancel() \(afterCancel), phases \(recorder.transcript), final \(model.phase)")
            try run.expect(!recorder.phases.contains(where: \.isTerminal), "published a terminal phase after cancel(): drop a cancelled attempt's result (check Task.isCancelled or an attempt number on the main actor before publishing)")
            try run.expect(model.phase == afterCancel, "phase changed after cancel() returned: nothing of the cancelled attempt may be published (check Task.isCancelled or an attempt number before publishing)")
        },
        ConformanceCheck("TRANS-4", "A cancel is never a failure: the phase goes back to empty.") { run in
            let gate = Gate()
            let source = run.route("held.png", run.images.small, faults: Faults(gate: gate))
            let changeGate = Gate()
            let changed = run.route("changed.png", run.images.small, faults: Faults(gate: changeGate))
            let loader = try run.loader()
            let (model, recorder) = run.model(loader, source)
            model.load()
            try await gate.waitUntilHeld()
            model.cancel()
            let afterCancel = model.phase
            let (changing, changingRecorder) = run.model(loader, changed)
            changing.load()
            try await changeGate.waitUntilHeld()
            let change = try run.changeSource(changing, to: run.route("other.png", run.images.other),
                                              recorder: changingRecorder, expecting: run.images.other,
                                              "setSource(other) while the first source loads")
            let afterChange = change.after
            gate.open()
            changeGate.open()
            await run.settle()
            run.note("explicit cancel: \(recorder.transcript); source change: \(changingRecorder.transcript), "
                     + "right after it \(afterChange)")
            try run.expect(afterCancel == .empty, "phase after cancel() is \(afterCancel), expected empty: cancel() must publish empty before returning, never a failure")
            let failures = (recorder.phases + changingRecorder.phases).filter { $0.failure != nil }
            try run.expect(failures.isEmpty, "published \(failures.map(\.description)) for a cancel: a cancellation (CancellationError, URLError.cancelled) must end in empty, never in failure")
        },
        ConformanceCheck("TRANS-5", "load() after a cancel starts a new attempt that ends.") { run in
            let (gate, source, models) = try await run.startHeldLoad("held.png", run.images.small, loader: try run.loader())
            let (model, recorder) = models[0]
            model.cancel()
            try run.expectPhase(model, "empty", after: "cancel()")
            model.load()
            try run.expectPhase(model, "loading", after: "load() after the cancel")
            gate.open()
            try await run.expectTerminal(recorder, "load after cancel")
            run.note("phases \(recorder.transcript), requests \(run.requests(source))")
            try run.expectSuccess(model.phase, run.images.small, "load after cancel")
        },
    ]
}
