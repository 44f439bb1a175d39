import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let sourceChecks: [ConformanceCheck] = [
        ConformanceCheck("SOURCE-1", "After a change from A to B nothing of A is published.") { run in
            let loader = try run.loader()
            let closedBefore = run.server.counters.connectionsClosedByClient
            let (gate, a, models) = try await run.startHeldLoad("a.png", run.images.small, loader: loader)
            let (model, recorder) = models[0]
            let b = run.route("b.png", run.images.other)
            try run.expectPhase(model, "loading", after: "load() of A")
            try run.changeSource(model, to: b, recorder: recorder, expecting: run.images.other, "setSource(B) while A loads")
            let changedAt = recorder.count
            model.load()
            try run.expect(model.phase.image != run.images.small.fingerprint && model.phase.failure == nil,
                           "right after load() of B the phase is \(model.phase)")
            try await run.expectTerminal(recorder, "load of b.png after setSource(_:) while a.png loads")
            let decodesBefore = await loader.decodeCount
            gate.open()
            await run.waitForAbandonedTransfer(a, loader: loader, closedBefore: closedBefore, decodesBefore: decodesBefore)
            run.note("phases \(recorder.transcript)")
            let afterChange = recorder.phases(from: changedAt)
            try run.expect(!afterChange.contains { $0.image == run.images.small.fingerprint }, "published A's image after the change: setSource(_:) must cancel A's attempt, or its result must be dropped when the source changed")
            try run.expect(!afterChange.contains { $0.failure != nil }, "published a failure after the change: the cancel of A by a source change must not surface as a failure")
            try run.expectSuccess(model.phase, run.images.other, "final phase")
        },
        ConformanceCheck("SOURCE-2", "While B loads, A's image is never a success.") { run in
            let gate = Gate()
            let a = run.route("a.png", run.images.small)
            let b = run.route("b.png", run.images.other, faults: Faults(gate: gate))
            let (model, recorder) = run.model(try run.loader(), a)
            model.load()
            try await run.expectTerminal(recorder, "load of a.png")
            let changedAt = recorder.count
            let change = try run.changeSource(model, to: b, recorder: recorder, "setSource(B) after A's success")
            // Without the profile, A's image kept after the change would be B's success until B
            // loads; with it, the kept phase is allowed only until B's first publication.
            try run.expect(change.keptPhase || change.after.image != run.images.small.fingerprint,
                           "after setSource(B) the phase is still A's \(change.after): the model shows A as B's success "
                           + "until B loads; publish empty on a source change (A's image may only be loading(previous:))")
            model.load()
            let whileLoading = model.phase
            let keptWhileLoading = change.keptPhase && recorder.count == changedAt && whileLoading == change.after
            try await gate.waitUntilHeld()
            gate.open()
            try await run.expectTerminal(recorder, count: 2, "load of b.png after setSource(_:)")
            run.note("phases \(recorder.transcript)" + (change.keptPhase ? "; A's phase kept after the change" : ""))
            try run.expect(!whileLoading.isTerminal || keptWhileLoading, "phase while B loads is \(whileLoading), expected loading: load() of B must publish loading (A's image may appear only as loading(previous:))")
            let afterChange = recorder.phases(from: changedAt)
            try run.expect(!afterChange.contains { $0.image == run.images.small.fingerprint }, "A's image published as a success for B: show it only as loading(previous:), and key results by source")
            try run.expectSuccess(model.phase, run.images.other, "final phase")
        },
        ConformanceCheck("SOURCE-3", "Keys cover the target size: memory cache, disk cache and coalescing.",
                         requires: .targetSize) { run in
            let gate = Gate()
            let full = run.route("photo.png", run.images.large, faults: Faults(gate: gate))
            var thumbnail = full
            thumbnail.maxPixelSize = 24
            let loader = try run.loader()
            let (fullModel, fullRecorder) = run.model(loader, full)
            let (thumbModel, thumbRecorder) = run.model(loader, thumbnail)
            fullModel.load()
            thumbModel.load()
            try await gate.waitUntilHeld()
            gate.open()
            try await run.expectTerminal(fullRecorder, "full-size load")
            try await run.expectTerminal(thumbRecorder, "thumbnail load")
            let (again, _) = try await run.loadToEnd(loader, thumbnail, "second thumbnail load")
            let (fullAgain, _) = try await run.loadToEnd(loader, full, "second full-size load")
            let decodes = await loader.decodeCount
            run.note("full \(fullModel.phase), thumbnail \(thumbModel.phase), again \(again.phase) and \(fullAgain.phase), "
                     + "decodes \(decodes)")
            try run.expectSuccess(fullModel.phase, run.images.large, "full-size load")
            try run.expectSuccess(fullAgain.phase, run.images.large, "second full-size load")
            guard case .success(_, let small) = thumbModel.phase, case .success(_, let smallAgain) = again.phase else {
                throw CheckFailed(reason: "thumbnail loads did not succeed: decode with ConformanceSource.maxPixelSize as the longest side")
            }
            try run.expect(max(small.width, small.height) <= 24, "thumbnail is \(small), the full-size image answered it: include the target size in the memory cache's and the coalescing's keys")
            try run.expect(smallAgain == small, "second thumbnail load got \(smallAgain), expected \(small): the memory cache key must include the target size")
        },
    ]
}
