import Foundation
import Imago
import ImagoTestServer

/// What one cancelled load showed.
struct CancellationSample {
    /// cancel() to the task's `response` throwing `.cancelled`.
    var cancelToTaskEnd: Double
    /// cancel() to the server counting the client's close (nil when it never did).
    var cancelToServerClose: Double?
    /// Body bytes the server sent after cancel() returned.
    var bytesAfterCancel: Int
    /// Files left in the download directory once the server saw the close.
    var temporaryFilesLeft: Int
}

/// Runs one network load that is cancelled at a chosen point, held there by the server's gate.
struct NetworkCancellation {
    let server: TestServer
    let body: [UInt8]
    let strategy: FetchStrategy
    let scratch: URL
    /// Shared by the samples, like an app's one client (connections are reused).
    let transport: any ImageTransport

    /// `fraction` nil cancels while the server holds the response head; otherwise the server
    /// stalls after that fraction of the body and the cancel comes once the client has it.
    /// Throws `StallPointMissed` when the server sent the bytes but the client's progress did
    /// not report them within 5 s (the load is cancelled and the sample is counted apart).
    func run(path: String, fraction: Double?) async throws -> CancellationSample {
        let gate = Gate()
        let stallAfter = fraction.map { Int(Double(body.count) * $0) }
        server.setRoute(path, Route(body: body, contentType: "image/jpeg",
                                    faults: Faults(stallAfterBytes: stallAfter, gate: gate)))
        defer { server.removeRoute(path) }
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(transport: transport, memoryCache: nil),
            network: .init(fetchStrategy: strategy, retryPolicy: .none, temporaryDirectory: scratch)))
        let received = Watermark()
        let task = pipeline.imageTask(for: ImageRequest(source: .url(server.url(for: path)))) { progress in
            received.raise(to: progress.received)
        }
        if let stallAfter {
            try await server.counters.waitUntil(timeout: .seconds(10)) { $0.bodyBytesSent(for: path) >= stallAfter }
            guard try await received.reached(stallAfter, timeout: .seconds(5)) else {
                task.cancel()
                _ = try? await task.response
                throw StallPointMissed(path: path, expected: stallAfter, reported: received.valueAtTimeout ?? 0)
            }
        } else {
            try await gate.waitUntilHeld()
        }
        let sentAtCancel = server.counters.bodyBytesSent(for: path)
        let closedBefore = server.counters.connectionsClosedByClient
        let start = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.response
            throw BenchError("a cancelled load of \(path) succeeded")
        } catch let error as ImageLoadingError where error.isCancellation {}
        let taskEnd = (ContinuousClock.now - start).seconds * 1000
        var serverClose: Double?
        do {
            try await server.counters.waitUntil(timeout: .seconds(2)) { $0.connectionsClosedByClient > closedBefore }
            serverClose = (ContinuousClock.now - start).seconds * 1000
        } catch {
            serverClose = nil   // reported as "server did not see the close"
        }
        return CancellationSample(
            cancelToTaskEnd: taskEnd, cancelToServerClose: serverClose,
            bytesAfterCancel: server.counters.bodyBytesSent(for: path) - sentAtCancel,
            temporaryFilesLeft: await Self.settledCount(scratch))
    }

    /// Files in `directory`, after giving asynchronous clean-up up to 0.5 s to finish (it
    /// returns as soon as the directory is empty; a file still there then is a leak).
    static func settledCount(_ directory: URL) async -> Int {
        for _ in 0..<50 {
            if ScratchDirectory.count(directory) == 0 { return 0 }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return ScratchDirectory.count(directory)
    }
}

/// The server had sent the bytes up to the stall point but the client's progress never said
/// it had them: the sample cannot say anything about "cancel at X%", so it is counted apart.
struct StallPointMissed: Error, CustomStringConvertible {
    let path: String
    let expected: Int
    let reported: Int
    var description: String { "\(path): client progress stopped at \(reported) of \(expected) bytes" }
}

/// Runs one decode that is cancelled while the codec is working on it.
struct DecodeCancellationRun {
    let body: Data

    /// Median of three full decodes through the pipeline after a warm-up one (the first
    /// decode in a process is slower), to aim the cancel at the middle of a decode.
    func fullDecodeDuration() async throws -> Duration {
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(transport: UnusedTransport(), memoryCache: nil)))
        var durations: [Duration] = []
        for index in 0..<4 {
            let start = ContinuousClock.now
            _ = try await pipeline.response(for: ImageRequest(source: .data(body, id: "decode-cancel-probe-\(index)")))
            if index > 0 { durations.append(ContinuousClock.now - start) }
        }
        return durations.sorted()[1]
    }

    /// Cancels `delay` after the decode started; returns (cancel→task end, cancel→decode end) ms,
    /// or nil when the decode finished before the cancel.
    /// The delay is a point in the decode, not synchronisation: the codec has no progress
    /// signal, so the middle is found from the measured full decode time.
    func run(id: String, delay: Duration) async throws -> (taskEnd: Double, decodeEnd: Double)? {
        let started = Watermark(), ended = Watermark()
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(transport: UnusedTransport(), memoryCache: nil),
            diagnostics: .init(eventHandler: { event in
                if event.kind == .decodeStart { started.increment() }
                if event.kind == .decodeEnd { ended.increment() }
            })))
        let task = pipeline.imageTask(for: ImageRequest(source: .data(body, id: id)))
        try await started.wait(atLeast: 1)
        try await Task.sleep(for: delay)
        let start = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.response
            return nil
        } catch where error.isCancellation {}
        let taskEnd = (ContinuousClock.now - start).seconds * 1000
        try await ended.wait(atLeast: 1)
        return (taskEnd, (ContinuousClock.now - start).seconds * 1000)
    }
}
