import Foundation
import ImagoTestServer

extension ConformanceCheck {
    /// HTTP-3 with the response a misconfigured CDN sends: `Content-Encoding: gzip` although the
    /// client did not ask for it, Content-Length the encoded size. Both directions: a stored
    /// gzip stream of a compressed PNG (encoded larger than decoded: a loader counting decoded
    /// bytes sees a truncation) and a really compressed one of a PNG gzip shrinks about 7:1, as
    /// real images served uncompressed (encoded far smaller: such a loader stops early or sees
    /// too much); both must succeed. A third body shrinks about 130:1, past the ratio at which
    /// clients refuse a decompression bomb (AsyncHTTPClient's default: 25:1): a success with the
    /// right pixels or a bounded refusal (a typed failure within the time limit) passes; a
    /// success with other pixels or no terminal phase fails. What it cannot see: encodings other
    /// than gzip, and chunked encoded bodies (no Content-Length to misjudge).
    static let contentEncodingCheck = ConformanceCheck(
        "HTTP-3", "Completeness is judged on the bytes the server sent: a gzip body is neither cut short nor "
            + "failed because its decoded size differs from Content-Length; a bomb's ratio may be refused.") { run in
        let larger = run.images.big
        let moderate = ConformanceImage.moderatelyCompressible(seed: 7, width: 160, height: 120)
        let extreme = try ConformanceImage.compressible(seed: 7, width: 160, height: 120)
        let bodies = [EncodedBody("stored-gzip.png", larger, GzipFile.stored(larger.bytes), mayBeRefused: false),
                      EncodedBody("compressed-gzip.png", moderate, try GzipFile.compressed(moderate.bytes), mayBeRefused: false),
                      EncodedBody("bomb-ratio-gzip.png", extreme, try GzipFile.compressed(extreme.bytes), mayBeRefused: true)]
        for body in bodies {
            run.note("\(body.name): \(body.bytes.count) bytes sent for a \(body.image.bytes.count)-byte PNG "
                     + "(\(body.ratioText):1)")
        }
        try run.expect(bodies[0].bytes.count > larger.bytes.count && (4.0...10.0).contains(bodies[1].ratio)
                       && bodies[2].ratio > 25, "the encoded bodies do not cover both directions and a bomb's ratio")
        // Every strategy the loader offers, when it offers a choice (decode while streaming
        // included: its consumer sees the decoded bytes, its completeness the wire's).
        let offered = run.subject.capabilities.fetchStrategies
        let strategies: [LoaderContext.FetchStrategy?] = offered.count > 1 ? offered : [nil]
        for strategy in strategies {
            var context = try run.newContext()
            context.fetchStrategy = strategy
            let loader = try run.loader(context)
            let label = strategy.map { "\($0) " } ?? ""
            for body in bodies {
                let headers = ["Content-Encoding": "gzip", "Cache-Control": CheckRun.cacheableForADay]
                let source = run.route((strategy.map { "\($0.rawValue)-" } ?? "") + body.name,
                                       Route(body: body.bytes, contentType: "image/png", faults: Faults(headers: headers)))
                let (model, recorder) = try await run.loadToEnd(loader, source, "\(label)\(body.name)")
                let sent = run.server.counters.bodyBytesSent(for: source.url.path)
                run.note("\(label)\(body.name): \(recorder.transcript), requests \(run.requests(source)), body bytes sent \(sent)")
                if body.mayBeRefused, let failure = model.phase.failure, Self.isBoundedRefusal(failure) {
                    run.note("\(label)\(body.name): refused as failure(\(failure)) within the time limit, accepted: a "
                             + "decompression-bomb defence (\(body.ratioText):1)")
                } else {
                    try run.expectSuccess(model.phase, body.image, "\(label)\(body.name) (\(body.bytes.count) gzip bytes "
                                          + "for a \(body.image.bytes.count)-byte image)"
                                          + (body.mayBeRefused ? "; a typed failure (transport, decoding) would also pass" : ""))
                }
                try run.expect(run.requests(source) == 1, "\(label)\(body.name): \(run.requests(source)) requests for one load")
            }
        }
    }

    /// A failure that refuses a body rather than misreading the request: the categories a size
    /// or ratio limit surfaces as. A cancel, a lost source or a status failure for a 200 are not.
    private static func isBoundedRefusal(_ failure: ObservedFailure) -> Bool {
        switch failure {
        case .transport, .decoding, .emptyData, .other: true
        case .httpStatus, .cancelled, .missingSource: false
        }
    }
}

/// One gzip-encoded response body of HTTP-3 and the image it encodes.
private struct EncodedBody {
    let name: String
    let image: ConformanceImage
    let bytes: [UInt8]
    /// Whether a typed failure is acceptable (a ratio a decompression-bomb defence refuses).
    let mayBeRefused: Bool

    init(_ name: String, _ image: ConformanceImage, _ bytes: [UInt8], mayBeRefused: Bool) {
        (self.name, self.image, self.bytes, self.mayBeRefused) = (name, image, bytes, mayBeRefused)
    }

    /// Decoded size over encoded size.
    var ratio: Double { Double(image.bytes.count) / Double(max(bytes.count, 1)) }

    /// `ratio` with one decimal, as the evidence states it.
    var ratioText: String { String(format: "%.1f", ratio) }
}
