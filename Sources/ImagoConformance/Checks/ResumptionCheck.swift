import ImagoTestServer

extension ConformanceCheck {
    /// FETCH-5: a broken transfer is resumed on the retry, with `Range` and `If-Range`, to the
    /// pixels of an uninterrupted one; a changed representation or a server that ignores ranges
    /// means starting over.
    static let resumptionCheck = ConformanceCheck(
        "FETCH-5", "A broken download resumes with Range and If-Range, every byte received once; a changed validator starts over.",
        requires: [.resumableDownloads, .retries, .injectableClock]
    ) { run in
        run.context.maxRetries = 2
        run.context.retryDelay = .seconds(1)
        let loader = try run.loader()
        let (first, second) = (run.images.big, try ConformanceImage.photo(seed: 7, width: 200, height: 240))
        for scenario in ResumptionScenario.allCases {
            try await scenario.run(run, loader, first: first, changed: second)
        }
    }
}

/// The three ways FETCH-5 breaks a transfer and lets the retry continue it.
enum ResumptionScenario: String, CaseIterable {
    /// The same representation is served again: the retry asks for the rest and gets a 206.
    case resumed
    /// The route's body (so its ETag) changes during the back-off: the If-Range fails, the server
    /// sends the whole new body with 200.
    case validatorChanged = "validator-changed"
    /// The server answers the range request with the whole body and 200.
    case rangeIgnored = "range-ignored"

    @MainActor
    func run(_ run: CheckRun, _ loader: any LoaderUnderTest, first: ConformanceImage, changed: ConformanceImage) async throws {
        let broken = first.bytes.count / 3
        let headers = ["Cache-Control": CheckRun.cacheableForADay]
        let route = Route(body: first.bytes, contentType: "image/png",
                          faults: Faults(headers: headers, ignoresRange: self == .rangeIgnored),
                          initialFaults: [Faults(closeAfterBytes: broken, headers: headers)])
        let name = "\(rawValue).png"
        let source = run.route(name, route)
        let clock = run.context.clock
        let (model, recorder) = run.model(loader, source)
        model.load()
        let backingOff = await waitUntil { clock.sleeperCount > 0 || recorder.phases.contains { $0.isTerminal } }
        try run.expect(backingOff && clock.sleeperCount > 0,
                       "\(rawValue): after the transfer broke at \(broken) bytes no retry waited on the injected clock; phases \(recorder.transcript)")
        let expected = self == .validatorChanged ? changed : first
        if self == .validatorChanged {
            run.route(name, Route(body: changed.bytes, contentType: "image/png", faults: Faults(headers: headers)))
        }
        // Every back-off the loader takes is let through; FETCH-5 judges the requests it made.
        for _ in 0..<4 where !recorder.phases.contains(where: \.isTerminal) {
            clock.advance(by: .seconds(600))
            _ = await waitUntil { clock.sleeperCount > 0 || recorder.phases.contains { $0.isTerminal } }
        }
        try await run.expectTerminal(recorder, "\(rawValue): the retried load")
        let log = run.server.counters.snapshot.requestLog(for: source.url.path)
        let sent = run.server.counters.bodyBytesSent(for: source.url.path)
        let retried = log.dropFirst().first.map { "Range \($0.headers["range"] ?? "none"), If-Range \($0.headers["if-range"] ?? "none")" }
        run.note("\(rawValue): broken at \(broken) of \(first.bytes.count) bytes; \(log.count) requests, the retry's \(retried ?? "none"); "
                 + "body bytes sent \(sent); \(model.phase)")
        try run.expectSuccess(model.phase, expected, "\(rawValue): the retried load")
        try run.expect(log.count == 2, "\(rawValue): \(log.count) requests, expected 2 (the broken one and one retry)")
        let retry = log[1].headers
        // N may fall short of the bytes sent: what the client's HTTP stack had buffered but not
        // handed over when the connection closed is lost to the loader (noted, not judged).
        let asked = retry["range"] ?? "none"
        guard let start = Self.rangeStart(asked), start > 0, start <= broken else {
            throw CheckFailed(reason: "\(rawValue): the retry asked Range \(asked), expected bytes=N- with 0 < N ≤ \(broken) "
                              + "(the bytes received before the break): ask for the rest of the partial body, not all of it nor more than arrived")
        }
        let validator = retry["if-range"] ?? ""
        try run.expect(!validator.isEmpty,
                       "\(rawValue): the range request had no If-Range: send the broken response's ETag (or Last-Modified), so a changed image is sent whole instead of spliced")
        let whole: Int = self == .resumed ? broken + first.bytes.count - start : broken + expected.bytes.count
        let lost: Int = broken - start
        run.note("\(rawValue): resumed from \(start) of the \(broken) bytes sent before the break (\(lost) lost below the loader)")
        let how: String = self == .resumed ? ": the broken part, then bytes \(start)- once" : ": the broken part, then the whole body once"
        try run.expect(sent == whole, "\(rawValue): the server sent \(sent) body bytes, expected \(whole)" + how)
    }

    /// N of a `Range: bytes=N-` field; nil for any other form.
    static func rangeStart(_ field: String) -> Int? {
        guard field.hasPrefix("bytes="), field.hasSuffix("-") else { return nil }
        return Int(field.dropFirst(6).dropLast())
    }
}
