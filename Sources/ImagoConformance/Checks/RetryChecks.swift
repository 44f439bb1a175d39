import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let retryChecks: [ConformanceCheck] = [
        ConformanceCheck("RETRY-1", "Retries only transient failures, at most the configured count.", requires: .retries) { run in
            run.context.maxRetries = 2
            let loader = try run.loader()
            let image = run.images.small
            let cases: [(String, Route, expectedRequests: Int, ObservedPhase?)] = [
                ("503-twice.png", Route(body: image.bytes).failFirst(2, with: Faults(status: 503)), 3, nil),
                ("503-always.png", Route(body: image.bytes, faults: Faults(status: 503)), 3, .failure(.httpStatus(503))),
                ("408-once.png", Route(body: image.bytes).failFirst(1, with: Faults(status: 408)), 2, nil),
                ("404.png", Route(body: image.bytes, faults: Faults(status: 404)), 1, .failure(.httpStatus(404))),
                ("403.png", Route(body: image.bytes, faults: Faults(status: 403)), 1, .failure(.httpStatus(403))),
                ("not-an-image.png", Route(body: Array("plain text".utf8)), 1, nil),
            ]
            for (name, route, expectedRequests, expectedPhase) in cases {
                let source = run.route(name, route)
                let (model, _) = try await run.loadToEnd(loader, source, name)
                run.note("\(name): \(model.phase), \(run.requests(source)) requests")
                try run.expect(run.requests(source) == expectedRequests,
                               "\(name): \(run.requests(source)) requests, expected \(expectedRequests): retry only transient failures (5xx, 408, 429, connection errors, truncation), at most LoaderContext.maxRetries (2 here) times")
                if let expectedPhase {
                    try run.expect(model.phase == expectedPhase, "\(name) ended \(model.phase), expected \(expectedPhase): after the last try publish that try's failure")
                } else if name.hasPrefix("not-") {
                    guard case .failure(.decoding) = model.phase else { throw CheckFailed(reason: "\(name) ended \(model.phase), expected a decoding failure, never retried") }
                } else {
                    try run.expectSuccess(model.phase, image, "\(name)")
                }
            }
        },
        ConformanceCheck("RETRY-2", "Retries are invisible: loading until one terminal phase; cancel in back-off stops them.",
                         requires: .retries) { run in
            run.context.maxRetries = 2
            let image = run.images.small
            let flaky = run.route("flaky.png", Route(body: image.bytes).failFirst(2, with: Faults(status: 503)))
            let (model, recorder) = try await run.loadToEnd(try run.loader(), flaky, "retried load")
            await run.settle()
            run.note("retried load \(recorder.transcript), \(run.requests(flaky)) requests")
            try run.expect(recorder.phases.filter(\.isTerminal).count == 1, "more than one terminal phase: retries must be invisible; stay loading between tries and publish only the last try's outcome")
            try run.expectSuccess(model.phase, image, "retried load")
            guard run.subject.capabilities.contains(.injectableClock) else {
                run.note("cancel during back-off not checked: no injectableClock")
                return
            }
            run.context.retryDelay = .seconds(30)
            let clock = run.context.clock
            let down = run.route("down.png", Route(body: image.bytes, faults: Faults(status: 503)))
            let (backingOff, backingOffRecorder) = run.model(try run.loader(), down)
            let sleepersBefore = clock.sleeperCount
            backingOff.load()
            let inBackOff = await waitUntil { clock.sleeperCount > sleepersBefore }
            try run.expect(inBackOff, "never waited on the injected clock after a 503: with .injectableClock the back-off must sleep on LoaderContext.clock")
            try run.expectPhase(backingOff, "loading", after: "a 503 whose retry waits in back-off")
            backingOff.cancel()
            try run.expectPhase(backingOff, "empty", after: "cancel() during back-off")
            clock.advance(by: .seconds(600))
            _ = await waitUntil(timeout: .seconds(5)) { clock.sleeperCount == sleepersBefore }
            await run.settle()
            run.note("cancel in back-off: \(backingOffRecorder.transcript), \(run.requests(down)) requests")
            try run.expect(run.requests(down) == 1, "retried after a cancel during back-off: cancel() must end the back-off sleep and the retry loop")
            try run.expect(!backingOffRecorder.phases.contains { $0.failure != nil }, "published a failure for the cancel: a cancel during back-off ends in empty, never in failure")
        },
        ConformanceCheck("RETRY-3", "retry() after a failure is a new attempt with a new request.") { run in
            let source = run.route("once.png", Route(body: run.images.small.bytes).failFirst(1, with: Faults(status: 404)))
            let (model, recorder) = try await run.loadToEnd(try run.loader(), source, "first load (404)")
            model.retry()
            let immediate = model.phase
            try await run.expectTerminal(recorder, count: 2, "retry")
            run.note("\(recorder.transcript), \(run.requests(source)) requests")
            guard case .loading = immediate else { throw CheckFailed(reason: "phase after retry() is \(immediate), expected loading: retry() after a failure must start a new attempt and publish loading before returning") }
            try run.expect(run.requests(source) == 2, "retry() made \(run.requests(source) - 1) requests, expected 1: retry() must fetch again, not replay the failure")
            try run.expectSuccess(model.phase, run.images.small, origin: .network, "retry")
        },
    ]
}
