import AsyncHTTPClient
import Foundation
import Imago

/// `Mutant.httpStoresNoStore`: a transport that tidies the response's `Cache-Control` and loses
/// `no-store` on the way (as a header filter keeping "the directives that matter" would), so the
/// pipeline stores what the server said never to store.
struct NoStoreDroppingTransport: ImageTransport {
    let base: any ImageTransport

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        var result = try await base.fetch(request, progress: progress)
        if let control = result.head.headers["cache-control"] {
            let kept = control.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { $0.lowercased() != "no-store" }
            result.head.headers["cache-control"] = kept.isEmpty ? nil : kept.joined(separator: ", ")
        }
        return result
    }
}

/// `Mutant.fetchResumeDropsIfRange`: a transport that filters the request's headers down to
/// "the ones the server needs" and keeps `Range` but not `If-Range`, so the retry of a broken
/// download asks for the rest of whatever the server now has at the URL.
struct IfRangeDroppingTransport: ImageTransport {
    let base: any ImageTransport

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        var filtered = request
        filtered.headers = request.headers.filter { $0.key.lowercased() != "if-range" }
        return try await base.fetch(filtered, progress: progress)
    }
}

/// `Mutant.diskStoresBeforeValidating`: an HTTP cache layered under the pipeline, writing every
/// complete 200 body it fetches into the pipeline's disk cache before anyone has checked that
/// it is an image (an HTML error page served as 200 included). Stored bodies only (`.data`).
struct StoringBeforeValidatingTransport: ImageTransport {
    let base: any ImageTransport
    let disk: any ImageDiskCaching

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        let result = try await base.fetch(request, progress: progress)
        if result.head.statusCode == 200, case .data(let bytes) = result.body {
            _ = try? disk.store(bytes, forKey: ImageSource.url(request.url).identity, metadata: DiskCache.Metadata())
        }
        return result
    }
}

/// `Mutant.errStatusAfterBody`: a transport of the harness's own, over AsyncHTTPClient, that
/// reads every body to its end and only then looks at the status, so an error page is waited for
/// (and a held one holds the load). Bodies are kept in memory or written to the request's file;
/// a streaming request goes to `base` (the bug's subjects fetch `.data` and `.file`).
struct ErrorPageReadingTransport: ImageTransport {
    let base: any ImageTransport

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        guard request.strategy != .stream else { return try await base.fetch(request, progress: progress) }
        var http = HTTPClientRequest(url: request.url.absoluteString)
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        let status: Int, headers: [String: String], body: Data
        do {
            let response = try await HTTPClient.shared.execute(http, timeout: .seconds(60))
            let collected = try await response.body.collect(upTo: request.maxResponseSize)
            status = Int(response.status.code)
            headers = FetchResponseHead.fields(response.headers.map { ($0.name, $0.value) })
            body = Data(collected.readableBytesView)
        } catch {
            throw Task.isCancelled ? .cancelled : .transport("\(error)")
        }
        guard (200...299).contains(status) else { throw .httpStatus(status) }   // decided after the whole page
        guard !body.isEmpty else { throw .emptyData }
        progress(FetchProgress(received: body.count, expected: body.count))
        let head = FetchResponseHead(statusCode: status, expectedLength: body.count, contentType: headers["content-type"],
                                     headers: headers)
        guard request.strategy == .file else { return FetchResult(head: head, body: .data(body), receivedBytes: body.count) }
        let url = request.makeDownloadFileURL()
        do { try body.write(to: url) } catch { throw .fileSystem("writing the download: \(error)") }
        return FetchResult(head: head, body: .file(url), receivedBytes: body.count)
    }
}
