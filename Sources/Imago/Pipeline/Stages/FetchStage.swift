import Foundation
import Synchronization

/// The fetch stage: the one loop every fetch strategy runs. Each attempt goes to the transport
/// under the network limits (`FetchAdmission`: connection slots for HTTP/1.1, stream slots for an
/// origin that speaks HTTP/2) in the shared work's live priority order; a transient failure is retried after the retry policy's back-off on the
/// pipeline's clock; a 304 that confirms nothing usable is asked again unconditionally, once
/// (`DiskLookup.askingUnconditionally`). What differs between strategies (a body kept in memory,
/// downloaded to a resumable file, or decoded as it arrives) is the `FetchBody` passed in.
struct FetchStage: Sendable {
    let transport: any ImageTransport
    let admission: FetchAdmission
    /// Where back-offs wait (`Configuration.Dependencies.clock`, `PipelineClock.sleep(for:)`).
    let clock: PipelineClock
    /// The retry policy, the idle timeout, the size limit, and where download-to-file
    /// temporaries go when no disk cache hands them out (`temporaryDirectory`).
    let network: ImagePipeline.Configuration.Network
    let disk: DiskStage
    let diagnostics: PipelineDiagnostics

    init(configuration: ImagePipeline.Configuration, disk: DiskStage, diagnostics: PipelineDiagnostics) {
        transport = configuration.dependencies.transport
        admission = FetchAdmission(connectionLimit: configuration.limits.maxConcurrentFetches,
                                   streamLimit: configuration.limits.maxConcurrentStreams)
        clock = configuration.dependencies.clock
        network = configuration.network
        self.disk = disk
        self.diagnostics = diagnostics
    }

    /// Fetches `url` for `request` until `body` has its output, the failure is final, or the
    /// caller is cancelled. `lookup` is what the disk cache held for the source.
    func fetch<Body: FetchBody>(_ url: URL, _ request: ImageRequest, lookup: DiskLookup, shared: SharedWork,
                                into body: Body) async -> Result<Body.Output, ImageLoadingError> {
        let sourceKey = request.source.identity, origin = FetchAdmission.origin(of: url)
        let mayMultiplex = transport.mayMultiplex(url)
        var lookup = lookup
        var retries = 0, restarts = 0, attempts = 0
        defer { body.close() }
        while true {
            attempts += 1
            var attempt = FetchRequest(url: url, headers: lookup.conditionalHeaders, strategy: body.strategy,
                                       idleTimeout: network.idleTimeout, maxResponseSize: network.maxResponseSize,
                                       temporaryDirectory: network.temporaryDirectory)
            body.prepare(&attempt)
            let prepared = attempt, number = attempts
            let stopBody = body.stopper
            let queuedAt = diagnostics.now()
            var outcome: Result<Exchange, FailedExchange>?
            if let slot = await admission.admit(source: sourceKey, origin: origin, mayMultiplex: mayMultiplex, priority: { shared.priority }) {
                outcome = await withTaskCancellationHandler {
                    await transportFetch(prepared, sourceKey, attempt: number, queuedAt: queuedAt, shared, slot: slot,
                                         origin: origin)
                } onCancel: {
                    stopBody()
                }
                slot.release()
            }
            if let refusal = body.takeRefusal() { return .failure(refusal) }   // the body's consumer stopped the transfer
            // The answer to a range request could not continue the partial (416, a 206 for
            // other bytes): it is dropped; start over at once without Range, a bounded number
            // of times (each needs a partial kept by an earlier failed attempt anyway).
            if body.settle(after: outcome.map { $0.mapError(\.error) }), restarts < 2 {
                restarts += 1
                continue
            }
            switch outcome {
            case nil:
                return .failure(.cancelled)
            case .failure(let failed)? where failed.error == .cancelled:
                return .failure(.cancelled)
            case .success(let exchange)?:
                if let output = await body.finish(exchange, lookup: lookup) { return output }
                guard let unconditional = lookup.askingUnconditionally() else { return .failure(.fetch(.httpStatus(304))) }
                lookup = unconditional
            case .failure(let failed)?:
                body.endAttempt()   // nothing held through the back-off
                switch await backOff(after: failed.error, retries: &retries, attempt: attempts, sourceKey) {
                case .retry: continue
                case .giveUp(let failure):
                    // Only a final failure is judged: a retried one was not the server's last word.
                    if case .fetch = failure {
                        disk.remember(failed, sourceKey: sourceKey, writes: request.cachePolicy.writesDisk)
                    }
                    body.giveUp(failure)
                    return .failure(failure)
                }
            }
        }
    }

    enum BackOff {
        case retry
        case giveUp(ImageLoadingError)
    }

    /// After a failed attempt: waits out the retry policy's back-off on the pipeline's clock
    /// when the error is worth retrying and retries remain (`.retry`), else the failure to end
    /// with (`.cancelled` when cancelled during the wait: no more requests, RETRY-2).
    private func backOff(after error: FetchError, retries: inout Int, attempt: Int, _ sourceKey: String) async -> BackOff {
        let decision = network.retryPolicy.decision(beforeRetry: retries + 1, after: error)
        guard case .retry(let wait) = decision else {
            diagnostics.notRetried(sourceKey, attempt: attempt, after: error, decision)
            return .giveUp(.fetch(error.withoutHead))
        }
        retries += 1
        diagnostics.retrying(sourceKey, attempt: attempt, after: error, delay: wait)
        do {
            try await clock.sleep(for: wait)
            return .retry
        } catch {
            return .giveUp(.cancelled)
        }
    }

    /// One request to the transport: attempt number `attempt` of the fetch, waiting for its
    /// network slot since `queuedAt` (nil when no one reads stage timings). The slot hears of the
    /// first byte, and the admission of the protocol `origin` answered with.
    private func transportFetch(_ request: FetchRequest, _ key: String, attempt: Int, queuedAt: ContinuousClock.Instant?,
                                _ shared: SharedWork, slot: FetchSlot, origin: String) async -> Result<Exchange, FailedExchange> {
        let report = diagnostics.fetchStarted(request, sourceKey: key, attempt: attempt, queuedAt: queuedAt)
        let firstByte = Mutex(false)
        let requestedAt = disk.now()
        let diagnostics = self.diagnostics
        do {
            let result = try await transport.fetch(request) { progress in
                if !firstByte.withLock({ seen in defer { seen = true }; return seen }) {
                    slot.firstByte()
                    diagnostics.firstByte(report)
                }
                shared.report(progress)
            }
            admission.learn(origin: origin, httpVersion: result.head.httpVersion)
            diagnostics.fetchEnded(report, .success(result))
            return .success(Exchange(result: result, requestedAt: requestedAt, receivedAt: disk.now()))
        } catch {
            if case .httpStatus(_, _, let head?) = error { admission.learn(origin: origin, httpVersion: head.httpVersion) }
            diagnostics.fetchEnded(report, .failure(error))
            return .failure(FailedExchange(error: error, requestedAt: requestedAt, receivedAt: disk.now()))
        }
    }
}
