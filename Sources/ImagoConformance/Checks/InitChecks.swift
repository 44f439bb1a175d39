import Foundation

extension ConformanceCheck {
    static let initChecks: [ConformanceCheck] = [
        ConformanceCheck("INIT-1", "A new model publishes empty and does nothing until load().") { run in
            let source = run.route("lazy.png", run.images.small)
            let loader = try run.loader()
            let (_, recorder) = run.model(loader, source)
            await run.settle()
            let decodes = await loader.decodeCount
            let diskEntries = await loader.diskCache?.entryCount ?? 0
            run.note("phases \(recorder.transcript), requests \(run.requests(source)), decodes \(decodes)")
            try run.expect(recorder.phases == [.empty], "published more than empty before load(): a new model must not start loading until load() is called")
            try run.expect(run.requests(source) == 0, "requested before load(): start the fetch in load(), not in the model's or the adapter's initializer")
            try run.expect(decodes == 0, "decoded before load(): no cache lookup or decode may run before load()")
            try run.expect(diskEntries == 0, "wrote the disk cache before load(): nothing may be stored before load()")
        },
        ConformanceCheck("INIT-2", "load() without a source fails with missingSource before returning, with no request.") { run in
            let loader = try run.loader()
            let (model, recorder) = run.model(loader, nil)
            let before = run.server.counters.totalRequests
            model.load()
            let immediate = model.phase
            await run.settle()
            run.note("phase after load() \(immediate), phases \(recorder.transcript)")
            try run.expect(run.server.counters.totalRequests == before, "made a request without a source: load() with a nil source must not fetch")
            if run.subject.capabilities.contains(.staysEmptyWithoutSource) {
                try run.expect(recorder.phases.allSatisfy { $0 == .empty }, "declared staysEmptyWithoutSource but published \(recorder.transcript): with it, load() without a source must publish nothing; drop the capability to publish failure(missingSource) instead")
                try run.notApplicable("declared staysEmptyWithoutSource (AsyncImage profile); verified it stays empty")
            }
            try run.expect(immediate == .failure(.missingSource), "phase after load() returned is \(immediate), expected failure(missingSource): publish it inside load() before returning, or, if staying empty is intended (AsyncImage's way), declare .staysEmptyWithoutSource")
            try run.expect(recorder.phases == [.empty, .failure(.missingSource)], "published \(recorder.transcript), expected empty then failure(missingSource) only (or declare .staysEmptyWithoutSource)")
        },
        ConformanceCheck("INIT-3", "On a miss, load() publishes loading before it returns.") { run in
            let source = run.route("miss.png", run.images.small)
            let (model, recorder) = run.model(try run.loader(), source)
            model.load()
            let immediate = model.phase
            try await run.expectTerminal(recorder, "load")
            run.note("phase after load() \(immediate), phases \(recorder.transcript)")
            guard case .loading = immediate else { throw CheckFailed(reason: "phase after load() returned is \(immediate), expected loading: on a miss publish loading inside load(), before starting the asynchronous work") }
            try run.expectSuccess(model.phase, run.images.small, origin: .network, "load")
        },
    ]
}
