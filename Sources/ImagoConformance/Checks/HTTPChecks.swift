import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let httpChecks: [ConformanceCheck] = [
        ConformanceCheck("HTTP-1", "A no-store response is never written to disk, nor served from it later.",
                         requires: .diskCache) { run in
            let image = run.images.big
            let source = run.route("no-store.png", image, faults: Faults(headers: ["Cache-Control": "no-store"]))
            let (first, _) = try await run.loadToEnd(try run.loader(), source, "first load")
            // In any form: a file at least as large as the image could be it with a header.
            let suspects = try DirectoryScan.files(in: run.context.cacheDirectory).filter { $0.size >= image.bytes.count }
            let (again, _) = try await run.loadToEnd(try run.loader(), source, "load after restart")
            run.note("first \(first.phase), files as large as the image \(suspects.map(\.url.lastPathComponent)), "
                     + "after restart \(again.phase), requests \(run.requests(source))")
            try run.expectSuccess(first.phase, image, origin: .network, "first load")
            try run.expect(suspects.isEmpty, "the no-store image is on disk: never write a Cache-Control: no-store response to the disk cache")
            try run.expectSuccess(again.phase, image, origin: .network, "load after restart")
            try run.expect(run.requests(source) == 2, "served from a persistent cache without a request: a no-store response must be fetched again next time")
        },
        ConformanceCheck("HTTP-2", "Stored responses are used without a request only while fresh; stale or "
                         + "no-cache ones are revalidated, and a 304 serves the stored bytes.",
                         requires: [.diskCache, .httpFreshness]) { run in
            let image = run.images.small
            let fresh = run.route("fresh.png", image, faults: Faults(headers: ["Cache-Control": "max-age=86400"]))
            let stale = run.route("stale.png", image, faults: Faults(headers: ["Cache-Control": "max-age=0"]))
            let noCache = run.route("no-cache.png", image, faults: Faults(headers: ["Cache-Control": "no-cache, max-age=86400"]))
            for source in [fresh, stale, noCache] {
                let name = source.url.lastPathComponent
                _ = try await run.loadToEnd(try run.loader(), source, "\(name) first load")
                let sent = await run.bodyBytesSentOnceAnswered(source)
                // A new loader each time: a memory cache must not answer for the disk.
                let (second, _) = try await run.loadToEnd(try run.loader(), source, "\(name) after restart")
                let (third, _) = try await run.loadToEnd(try run.loader(), source, "\(name) after another restart")
                let requests = run.requests(source)
                let resent = await run.bodyBytesSentOnceAnswered(source) - sent
                run.note("\(name): \(second.phase), \(third.phase), requests \(requests), body bytes re-sent \(resent)")
                try run.expectSuccess(second.phase, image, origin: .disk, "\(name) after restart")
                try run.expectSuccess(third.phase, image, origin: .disk, "\(name) after another restart")
                if source == fresh {
                    try run.expect(requests == 1, "a fresh entry made a request: serve a stored response within its max-age without asking")
                } else {
                    try run.expect(requests == 3, "\(name): \(requests) requests for 3 loads; every use must be revalidated: send a conditional request when stale or no-cache")
                    try run.expect(resent == 0, "\(name): the revalidations re-sent \(resent) body bytes (not answered 304): send the stored ETag or Last-Modified as validators, and serve the stored bytes on 304")
                }
            }
        },
    ]
}
