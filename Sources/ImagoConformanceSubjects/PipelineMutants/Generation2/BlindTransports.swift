import Foundation
import Imago

/// The generation-2 bugs of a transport around Imago's own: each a transport an app might wrap
/// around the one it was given (a header filter, a retrying layer, a progress adapter), making
/// its mistake on the way. `BlindParts` puts one in place of the pipeline's transport.
enum BlindTransports {
    /// The transport of `mutant`'s bug around `base`, nil when the bug is not one of these.
    static func transport(around base: any ImageTransport, for mutant: Mutant) -> (any ImageTransport)? {
        switch mutant {
        case .progressUnknownTotalGuessed: ProgressTotalGuessingTransport(base: base)
        case .fetchFileProgressDropped: FileProgressDroppingTransport(base: base)
        case .errEmptyBodyIsTransportError: EmptyBodyAsDropTransport(base: base)
        case .retryTransportRetriesToo: RetryingTransport(base: base)
        case .httpAgeDropped, .httpNoCacheTakenForNoStore, .httpExpiresIMFOnly, .httpMaxAgeZeroDropped:
            HeaderRewritingTransport(base: base, mutant: mutant)
        case .errUnknownLengthTruncationKept, .errFileTruncationKept:
            PartialBodyKeepingTransport(base: base, strategy: mutant == .errFileTruncationKept ? .file : .data)
        default: nil
        }
    }
}

/// `Mutant.progressUnknownTotalGuessed`: with no Content-Length, the bytes so far are reported
/// as the total (an `expectedContentLength` of -1 replaced by what has arrived).
struct ProgressTotalGuessingTransport: ImageTransport {
    let base: any ImageTransport

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        try await base.fetch(request) { reported in
            progress(FetchProgress(received: reported.received, expected: reported.expected ?? reported.received))
        }
    }
}

/// `Mutant.fetchFileProgressDropped`: a download to file reports no progress at all (the
/// download's progress callback was never wired); other strategies report as usual.
struct FileProgressDroppingTransport: ImageTransport {
    let base: any ImageTransport

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        guard request.strategy == .file else { return try await base.fetch(request, progress: progress) }
        return try await base.fetch(request) { _ in }
    }
}

/// `Mutant.errEmptyBodyIsTransportError`: a response with no body bytes is taken for a
/// connection that delivered nothing, and fails as a transport error.
struct EmptyBodyAsDropTransport: ImageTransport {
    let base: any ImageTransport

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        do {
            return try await base.fetch(request, progress: progress)
        } catch .emptyData {
            throw .transport("the connection delivered no data")
        }
    }
}

/// `Mutant.retryTransportRetriesToo`: a transport that tries every request up to three times
/// itself, whatever the failure (a 404 too), before the pipeline's own retry policy sees it.
struct RetryingTransport: ImageTransport {
    let base: any ImageTransport
    let tries = 3

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        var attempt = 1
        while true {
            do {
                return try await base.fetch(request, progress: progress)
            } catch {
                guard error != .cancelled, !Task.isCancelled, attempt < tries else { throw error }
                attempt += 1
            }
        }
    }
}

/// The HTTP header mistakes of a transport that tidies response headers before the pipeline
/// sees them (on every response, a 304's included).
struct HeaderRewritingTransport: ImageTransport {
    let base: any ImageTransport
    let mutant: Mutant

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        var result = try await base.fetch(request, progress: progress)
        rewrite(&result.head.headers)
        return result
    }

    private func rewrite(_ headers: inout [String: String]) {
        switch mutant {
        case .httpAgeDropped:
            // An allow-list of "the caching headers" that forgot Age.
            headers["age"] = nil
        case .httpNoCacheTakenForNoStore:
            // "no-cache means do not cache."
            editDirectives(&headers) { $0.lowercased() == "no-cache" ? "no-store" : $0 }
        case .httpExpiresIMFOnly:
            // A date check that knows only IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT").
            if let expires = headers["expires"], expires.range(of: Self.imfFixdate, options: .regularExpression) == nil {
                headers["expires"] = nil
            }
        case .httpMaxAgeZeroDropped:
            // `if let maxAge, maxAge > 0`: a zero is taken for no max-age at all.
            editDirectives(&headers) { $0.replacingOccurrences(of: " ", with: "").lowercased() == "max-age=0" ? nil : $0 }
        default:
            break
        }
    }

    private func editDirectives(_ headers: inout [String: String], _ edit: (String) -> String?) {
        guard let control = headers["cache-control"] else { return }
        let kept = control.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.compactMap(edit)
        headers["cache-control"] = kept.isEmpty ? nil : kept.joined(separator: ", ")
    }

    private static let imfFixdate = #"^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$"#
}
