import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let errorChecks: [ConformanceCheck] = [
        ConformanceCheck("ERR-1", "A non-2xx fails with httpStatus at the head; nothing decoded or cached.") { run in
            let loader = try run.loader()
            for status in [404, 500] {
                let page = Array("<html><body>error \(status)</body></html>".utf8)
                let source = run.route("status-\(status).png", Route(body: page, contentType: "text/html",
                                                                    faults: Faults(status: status)))
                let (model, recorder) = try await run.loadToEnd(loader, source, "HTTP \(status)")
                run.note("\(status): \(recorder.transcript)")
                try run.expect(model.phase == .failure(.httpStatus(status)), "HTTP \(status) ended \(model.phase), expected "
                               + "failure(httpStatus(\(status))): " + Self.statusHint(model.phase))
            }
            // The body stalls after 4 bytes: only a loader that judges the head can end now.
            let body = Gate()
            let stalled = run.route("status-stalled.png", Route(body: [], faults: Faults(stallAfterBytes: 4, status: 404, gate: body)))
            let (stalledModel, stalledRecorder) = run.model(loader, stalled)
            stalledModel.load()
            let decidedAtHead = await stalledRecorder.waitForTerminal(timeout: .seconds(5))
            body.open()
            run.note("404 with its body held: \(stalledRecorder.transcript)")
            try run.expect(decidedAtHead && stalledModel.phase == .failure(.httpStatus(404)),
                           "a 404 whose body is held did not fail before the body arrived: decide at the response head (URLSession on Linux: cancel the data task in didReceive response, see \"Meeting ERR-1 with URLSession on Linux\" in the Adopting the Suite article)")
            let decodes = await loader.decodeCount
            let diskEntries = await loader.diskCache?.entryCount ?? 0
            let memoryCost = await loader.memoryCache?.totalCost ?? 0
            run.note("decodes \(decodes), disk entries \(diskEntries), memory cost \(memoryCost)")
            try run.expect(decodes == 0, "an error body was decoded: never hand a non-2xx body to the decoder")
            try run.expect(diskEntries == 0, "an error body was stored on disk: store only 2xx bodies that decoded")
            try run.expect(memoryCost == 0, "something was stored in memory after error responses: cache only decoded successes")
        },
        ConformanceCheck("ERR-2", "An undecodable body fails with a decoding error, an empty one with emptyData.") { run in
            let loader = try run.loader()
            let page = run.route("page.png", Route(body: Array("<!doctype html><p>hello</p>".utf8), contentType: "image/png"))
            let empty = run.route("empty.png", Route(body: [], contentType: "image/png"))
            let (pageModel, _) = try await run.loadToEnd(loader, page, "HTML body")
            let (emptyModel, _) = try await run.loadToEnd(loader, empty, "empty body")
            run.note("HTML body \(pageModel.phase), empty body \(emptyModel.phase)")
            guard case .failure(.decoding) = pageModel.phase else {
                throw CheckFailed(reason: "an HTML body ended \(pageModel.phase), not a decoding failure: map the decoder's error to ObservedFailure.decoding")
            }
            try run.expect(emptyModel.phase == .failure(.emptyData), "an empty body ended \(emptyModel.phase), expected failure(emptyData): check for a 2xx without bytes before decoding")
        },
        ConformanceCheck("ERR-3", "A transfer short of its Content-Length is a transport failure; nothing cached.") { run in
            let loader = try run.loader()
            let image = run.images.big
            let source = run.route("cut.png", image, faults: Faults(closeAfterBytes: image.bytes.count / 2))
            let (model, recorder) = try await run.loadToEnd(loader, source, "truncated transfer")
            let diskEntries = await loader.diskCache?.entryCount ?? 0
            let inMemory = await loader.memoryCache?.contains(source) ?? false
            run.note("\(recorder.transcript), disk entries \(diskEntries), in memory \(inMemory)")
            guard case .failure(.transport) = model.phase else {
                throw CheckFailed(reason: "a truncated transfer ended \(model.phase), not a transport failure: fail with ObservedFailure.transport when fewer bytes than Content-Length arrive")
            }
            try run.expect(diskEntries == 0, "partial bytes reached the disk cache: write it only after the whole body arrived and decoded")
            try run.expect(!inMemory, "a partial image reached the memory cache: insert only complete decodes")
        },
        ConformanceCheck("ERR-4", "No negative caching without freshness: the next load() after a failure makes a new request.") { run in
            let loader = try run.loader()
            // A status fault sends no Cache-Control, Expires or Last-Modified: a failure with no
            // freshness, which no loader may remember (a 404 or 410 with freshness may be).
            let source = run.route("flaky.png", Route(body: run.images.small.bytes, contentType: "image/png")
                .failFirst(1, with: Faults(status: 503)))
            let (failed, _) = try await run.loadToEnd(loader, source, "first load (503)")
            let (model, recorder) = try await run.loadToEnd(loader, source, "second load")
            run.note("first \(failed.phase), second \(recorder.transcript), requests \(run.requests(source))")
            try run.expect(failed.phase.failure != nil, "first load (a 503) ended \(failed.phase), expected a failure: a 5xx must fail (after any retries)")
            try run.expect(run.requests(source) == 2, "the failure was cached: \(run.requests(source)) requests, expected 2: do not remember failures; the next load() must fetch again")
            try run.expectSuccess(model.phase, run.images.small, origin: .network, "second load")
        },
    ]

    /// What a non-2xx that did not end in `failure(httpStatus)` suggests, from how it ended.
    private static func statusHint(_ phase: ObservedPhase) -> String {
        switch phase {
        case .failure(.decoding), .failure(.emptyData):
            "the error body went to the decoder: check the status before decoding"
        case .failure(.httpStatus):
            "the wrong status: report the final response's status code"
        case .failure(.other), .failure(.transport):
            "the status was seen but not reported as one: check that the adapter maps the loader's status error to httpStatus"
        case .success:
            "the error page was taken for an image: check the status before decoding"
        case .failure(.cancelled), .failure(.missingSource), .empty, .loading:
            "the attempt ended without judging the response: check the status at the response head"
        }
    }
}
