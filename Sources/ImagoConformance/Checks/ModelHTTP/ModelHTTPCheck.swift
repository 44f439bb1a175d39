import Foundation
import ImagoTestServer

extension ConformanceCheck {
    /// MODEL-HTTP: generated response header sets, each used through a loader and judged use by
    /// use against `ReferencePrivateCache` (RFC 9111 for a private cache).
    static let modelHTTPCheck = ConformanceCheck(
        "MODEL-HTTP", "Generated response headers (Cache-Control, Expires, Date, Age, validators) and uses after "
            + "restarts: each use makes the request a private RFC 9111 cache would (none, conditional, or full).",
        requires: [.diskCache, .httpFreshness]
    ) { run in
        let tally = HTTPUseTally()
        // A case is one route and two or three loads, a few times cheaper than a phase sequence,
        // and the header space is wide: five cases per sequence of the budget.
        try await run.explore(
            sequencesPerBudgetSequence: 5,
            generate: { HTTPCaseOperation.generate(&$0, maxOperations: $1) },
            replay: { operations, trial in try await run.replayHTTPCase(operations, trial: trial, tally: tally) })
        run.note(tally.summary)
    }
}

extension CheckRun {
    /// Serves the case's response at a route of its own and runs its uses against the reference,
    /// returning the first divergence.
    func replayHTTPCase(_ operations: [HTTPCaseOperation], trial: Int, tally: HTTPUseTally) async throws -> Divergence? {
        let image = images.small
        let response = HTTPCaseResponse(operations, image: image.bytes, start: Int64(Self.wallClock()))
        let name = "case-\(trial).png"
        var faults = response.route.faults ?? Faults()
        let source = route(name, response.route)
        var reference = ReferencePrivateCache()
        var uses = 0
        for (index, operation) in operations.enumerated() {
            switch operation {
            case .refresh:
                faults = response.refreshed
                var refreshed = response.route
                refreshed.faults = faults
                route(name, refreshed)
            case .use:
                uses += 1
                if let divergence = try await use(uses, of: source, image, operation: index + 1, response: response,
                                                  faults: faults, reference: &reference, tally: tally) {
                    return divergence
                }
            default:
                continue
            }
        }
        return nil
    }

    /// One use through a new loader: the request it made (if any) against what the reference allows,
    /// the origin it published against the server's answer; the reference then takes that answer in.
    private func use(_ number: Int, of source: ConformanceSource, _ image: ConformanceImage, operation: Int,
                     response: HTTPCaseResponse, faults: Faults, reference: inout ReferencePrivateCache,
                     tally: HTTPUseTally) async throws -> Divergence? {
        let path = source.url.path
        let allowed = reference.use(at: Self.wallClock())
        let logged = server.counters.snapshot.requestLog(for: path).count
        let bytes = server.counters.bodyBytesSent(for: path)
        let completed = server.counters.responsesCompleted(for: path)
        let requestTime = Self.wallClock()
        let (model, _) = try await loadToEnd(try loader(), source, "use \(number)")
        let responseTime = Self.wallClock()
        let requests = Array(server.counters.snapshot.requestLog(for: path).dropFirst(logged))
        // The server counts a response's bytes when the socket has taken them, which can be after
        // the loader has read them all: wait for its count of finished responses to catch up.
        let answered = completed + requests.count
        try await server.counters.waitUntil { $0.responsesCompleted(for: path) >= answered }
        let fullAnswer = server.counters.bodyBytesSent(for: path) > bytes
        let stored = reference.entry.map { Self.summary($0.fields) } ?? "nothing"
        func divergence(_ rule: String, _ expected: String, _ observed: String) -> Divergence {
            Divergence(rule: rule, operation: operation, expected: "use \(number) (stored: \(stored)) \(expected)",
                       observed: observed)
        }
        guard case .success(let origin, let fingerprint) = model.phase, fingerprint == image.fingerprint else {
            return divergence(allowed.rule, "succeeds with the image", "\(model.phase)")
        }
        guard let request = requests.first else {
            if !allowed.mayServeStored { return divergence(allowed.rule, "makes " + allowed.description, "no request") }
            if origin != .disk { return divergence("HTTP-2", "publishes origin disk without a request", "origin \(origin.rawValue)") }
            tally.count(.servedStored, allowed)
            return nil
        }
        if requests.count > 1 {
            return divergence(allowed.rule, "makes one request at most", "\(requests.count) requests")
        }
        let sent = Self.validators(request)
        if sent.isEmpty {
            if !allowed.mayFetch { return divergence(allowed.rule, "makes " + allowed.description, "an unconditional request") }
        } else {
            if !allowed.mayValidate { return divergence(allowed.rule, "makes " + allowed.description, "a conditional request with \(sent)") }
            if let problem = Self.validatorProblem(request, allowed.validators, now: Int64(requestTime)) {
                return divergence(allowed.rule, "makes " + allowed.description, "a conditional request with \(sent): \(problem)")
            }
        }
        let answer = fullAnswer ? "200" : "304"
        let expectedOrigin: ObservedOrigin = fullAnswer ? .network : .disk
        if origin != expectedOrigin {
            return divergence("HTTP-2", "after a \(answer) publishes origin \(expectedOrigin.rawValue)", "origin \(origin.rawValue)")
        }
        tally.count(sent.isEmpty ? .fetched : fullAnswer ? .validatedReplaced : .validatedNotModified, allowed)
        let fields = response.fields(faults, serverNow: Int64(requestTime))
        reference.received(StoredHTTPResponse(status: fullAnswer ? 200 : 304, fields: fields,
                                              requestTime: requestTime, responseTime: responseTime))
        return nil
    }

    /// `If-None-Match: … If-Modified-Since: …` as the request sent them ("" for neither).
    private static func validators(_ request: LoggedRequest) -> String {
        [("If-None-Match", request.headers["if-none-match"]), ("If-Modified-Since", request.headers["if-modified-since"])]
            .compactMap { name, value in value.map { "\(name): \($0)" } }.joined(separator: " ")
    }

    /// What is wrong with a conditional request's validators, or nil: the stored entity tag must be
    /// among If-None-Match's (exactly, `W/` kept); If-Modified-Since, when sent or when the only
    /// validator, must be the stored Last-Modified.
    private static func validatorProblem(_ request: LoggedRequest, _ required: CacheUse.Validators, now: Int64) -> String? {
        if let tag = required.entityTag {
            let sent = request.headers["if-none-match"]?.split(separator: ",").map { String($0).trimmingHTTPWhitespace() } ?? []
            if !sent.contains(tag) { return "If-None-Match must carry the stored ETag \(tag)" }
        }
        guard let modified = required.lastModified else { return nil }
        let since = request.headers["if-modified-since"]
        if since == nil && required.entityTag != nil { return nil }
        guard let since, let sinceDate = HTTPDateFormat.parse(since, now: now),
              sinceDate == HTTPDateFormat.parse(modified, now: now) else {
            return "If-Modified-Since must be the stored Last-Modified \(modified)"
        }
        return nil
    }

    /// The cache-relevant fields, `Cache-Control: …; ETag: …`.
    private static func summary(_ fields: [StoredHTTPResponse.Field]) -> String {
        let relevant = ["cache-control", "expires", "date", "age", "etag", "last-modified", "vary"]
        return fields.filter { relevant.contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
    }

    /// Seconds since 1970 on the machine's clock, the one loaders read `Date` and `Expires` against.
    private static func wallClock() -> Double { Date().timeIntervalSince1970 }
}
