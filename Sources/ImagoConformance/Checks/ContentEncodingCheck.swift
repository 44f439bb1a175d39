import Foundation
import ImagoTestServer

extension ConformanceCheck {
    /// HTTP-3 with the response a misconfigured CDN sends: `Content-Encoding: gzip` although the
    /// client did not ask for it, Content-Length the encoded size. Both directions: a stored
    /// gzip stream of a compressed PNG (encoded larger than decoded: a loader counting decoded
    /// bytes sees a truncation) and a really compressed one of a compressible PNG (encoded far
    /// smaller: such a loader stops early or sees too much). What it cannot see: encodings other
    /// than gzip, and chunked encoded bodies (no Content-Length to misjudge).
    static let contentEncodingCheck = ConformanceCheck(
        "HTTP-3", "Completeness is judged on the bytes the server sent: a gzip body is neither cut short nor "
            + "failed because its decoded size differs from Content-Length.") { run in
        let larger = run.images.big
        let smaller = try ConformanceImage.compressible(seed: 7, width: 160, height: 120)
        let bodies = [("stored-gzip.png", larger, GzipFile.stored(larger.bytes)),
                      ("compressed-gzip.png", smaller, try GzipFile.compressed(smaller.bytes))]
        for (name, image, body) in bodies {
            run.note("\(name): \(body.count) bytes sent for a \(image.bytes.count)-byte PNG")
        }
        try run.expect(bodies[0].2.count > larger.bytes.count && bodies[1].2.count * 4 < smaller.bytes.count,
                       "the encoded bodies do not cover both directions")
        // Every strategy the loader offers, when it offers a choice (decode while streaming
        // included: its consumer sees the decoded bytes, its completeness the wire's).
        let offered = run.subject.capabilities.fetchStrategies
        let strategies: [LoaderContext.FetchStrategy?] = offered.count > 1 ? offered : [nil]
        for strategy in strategies {
            var context = try run.newContext()
            context.fetchStrategy = strategy
            let loader = try run.loader(context)
            let label = strategy.map { "\($0) " } ?? ""
            for (name, image, body) in bodies {
                let headers = ["Content-Encoding": "gzip", "Cache-Control": CheckRun.cacheableForADay]
                let source = run.route((strategy.map { "\($0.rawValue)-" } ?? "") + name,
                                       Route(body: body, contentType: "image/png", faults: Faults(headers: headers)))
                let (model, recorder) = try await run.loadToEnd(loader, source, "\(label)\(name)")
                let sent = run.server.counters.bodyBytesSent(for: source.url.path)
                run.note("\(label)\(name): \(recorder.transcript), requests \(run.requests(source)), body bytes sent \(sent)")
                try run.expectSuccess(model.phase, image, "\(label)\(name) (\(body.count) gzip bytes for a "
                                      + "\(image.bytes.count)-byte image)")
                try run.expect(run.requests(source) == 1, "\(label)\(name): \(run.requests(source)) requests for one load")
            }
        }
    }
}
