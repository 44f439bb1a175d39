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
        let asked = log.dropFirst().first.map { "Range \($0.headers["range"] ?? "none"), If-Range \($0.headers["if-range"] ?? "none")" }
        run.note("\(rawValue): broken at \(broken) of \(first.bytes.count) bytes; \(log.count) requests, the retry's \(asked ?? "none"); "
                 + "body bytes sent \(sent); \(model.phase)")
        try run.expectSuccess(model.phase, expected, "\(rawValue): the retried load")
        try run.expect(log.count == 2, "\(rawValue): \(log.count) requests, expected 2 (the broken one and one retry)")
        let retry = log[1].headers
        try run.expect(retry["range"] == "bytes=\(broken)-",
                       "\(rawValue): the retry asked Range \(retry["range"] ?? "none"), expected bytes=\(broken)-: ask for exactly the bytes not yet received")
        try run.expect(!(retry["if-range"] ?? "").isEmpty,
                       "\(rawValue): the range request had no If-Range: send the broken response's ETag (or Last-Modified), so a changed image is sent whole instead of spliced")
        let whole = self == .resumed ? first.bytes.count : broken + expected.bytes.count
        try run.expect(sent == whole, "\(rawValue): the server sent \(sent) body bytes, expected \(whole)"
                       + (self == .resumed ? ": every byte once" : ": the broken part, then the whole body once"))
    }
}
