import Foundation
import ImagoBench
import ImagoConformance
import ImagoTestServer

extension LoaderSubjectRun {
    /// Cancel to the end of the request at the server, per fetch strategy and point of the body
    /// (`plan.cancelPoints`), the loader's model and the control alternating round by round.
    /// The server holds each response at the point (its gate before the head, or a stall after
    /// that fraction of the body), so the cancel comes at an exact place; the figure runs from
    /// `cancel()` to the server counting the client's close of that connection.
    ///
    /// Rows: `cancel-to-server-close` (ms) for the loader and the control, and `server-saw-close`
    /// (the fraction of cancels the server saw end within `cancelCloseTimeout`). No overhead
    /// ratio: both figures are a millisecond or so, and a ratio of two such figures is noise
    /// (the cancellation scenario's A/A runs moved such medians up to 5×).
    func cancellation() async throws -> [BenchResult] {
        guard plan.cancelRounds > 0 else { return [] }
        var rows: [BenchResult] = []
        for strategy in strategies {
            let loader = try session.makeLoader(try session.makeContext(strategy: strategy))
            let label = strategy?.rawValue ?? "default"
            for point in plan.cancelPoints {
                let pointLabel = point.map { "\(Int($0 * 100))%-of-body" } ?? "before-head"
                var loaderCloses: [Double] = [], controlCloses: [Double] = []
                var loaderSeen = 0, controlSeen = 0
                for round in 0..<plan.cancelRounds {
                    let path = "/loader/\(subject.name)/cancel/\(label)/\(pointLabel)/\(round).jpg"
                    if let ms = try await cancelledLoad(path: path, point: point, who: subject.name, start: { url in
                        let model = loader.makeModel(source: ConformanceSource(url: url))
                        model.load()
                        return { model.cancel() }
                    }) {
                        loaderCloses.append(ms)
                        loaderSeen += 1
                    }
                    if let ms = try await cancelledLoad(path: path + ".control", point: point, who: "raw control",
                                                        start: { url in
                        let task = Task { [control] in _ = try await control.load(url) }
                        return { task.cancel() }
                    }) {
                        controlCloses.append(ms)
                        controlSeen += 1
                    }
                    progress.advance()
                }
                let parameters = "subject=\(subject.name) strategy=\(label) point=\(pointLabel) "
                    + "size=\(plan.timedImageSize.width)x\(plan.timedImageSize.height)"
                // A loader the server never saw close gets "n/a" with why, never a made-up figure.
                let never = "n/a: the server never saw \(subject.name) close the request within "
                    + "\(plan.cancelCloseTimeout) of cancel() (0 of \(plan.cancelRounds) cancels)"
                let loaderParameters = parameters + " variant=\(LoaderRows.loaderVariant)"
                rows.append(loaderCloses.isEmpty
                    ? BenchResult(scenario: LoaderRows.scenario, parameters: loaderParameters, metric: "cancel-to-server-close",
                                  unit: "ms", direction: .lowerIsBetter, skipped: never)
                    : BenchResult(scenario: LoaderRows.scenario, parameters: loaderParameters, metric: "cancel-to-server-close",
                                  unit: "ms", direction: .lowerIsBetter, samples: loaderCloses))
                rows.append(BenchResult(scenario: LoaderRows.scenario,
                                        parameters: parameters + " variant=\(LoaderRows.controlVariant)",
                                        metric: "cancel-to-server-close", unit: "ms", direction: .lowerIsBetter,
                                        samples: controlCloses))
                let tries = Double(plan.cancelRounds)
                rows += LoaderRows.compared(parameters, metric: "server-saw-close", unit: "fraction",
                                            direction: .higherIsBetter, loader: [Double(loaderSeen) / tries],
                                            control: [Double(controlSeen) / tries], includeOverhead: false)
            }
        }
        return rows
    }

    /// Serves `timedImage` at `path` held at `point`, starts `who`'s load with `start` (which
    /// returns how to cancel it), waits until the server is held there, cancels, and returns the
    /// milliseconds until the server counted the client's close (nil: not within
    /// `plan.cancelCloseTimeout`).
    private func cancelledLoad(path: String, point: Double?, who: String,
                               start: (URL) -> () -> Void) async throws -> Double? {
        let gate = Gate()
        let stallAfter = point.map { Int(Double(timedImage.count) * $0) }
        server.setRoute(path, Route(body: timedImage, contentType: "image/jpeg",
                                    faults: Faults(stallAfterBytes: stallAfter, gate: gate)))
        defer {
            gate.open()   // a request the client never closed ends now, not at the server's shutdown
            server.removeRoute(path)
        }
        let cancel = start(server.url(for: path))
        do {
            if let stallAfter {
                try await server.counters.waitUntil(timeout: plan.loadTimeout) { $0.bodyBytesSent(for: path) >= stallAfter }
            } else {
                try await gate.waitUntilHeld(timeout: plan.loadTimeout)
            }
        } catch {
            cancel()
            throw LoaderBenchError.cancelPointNotReached(who: who, path: path, after: plan.loadTimeout)
        }
        let closedBefore = server.counters.connectionsClosedByClient
        let started = ContinuousClock.now
        cancel()
        do {
            try await server.counters.waitUntil(timeout: plan.cancelCloseTimeout) { $0.connectionsClosedByClient > closedBefore }
        } catch {
            return nil
        }
        return (ContinuousClock.now - started).seconds * 1000
    }
}
