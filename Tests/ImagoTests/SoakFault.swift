import Foundation
import ImagoTestServer
@testable import Imago

/// One misbehaviour the HTTP fault soak injects, the route that produces it, and the single
/// terminal outcome a load of that route must end in.
enum SoakFault: String, CaseIterable, Sendable {
    case honest, slowDrip, mislabelledContentType, htmlLabelledAsImage, truncatedImage
    case resetMidBody, resetMidChunkedBody, serverErrorBurst, persistentServerError, notFound
    case stallBeyondIdleTimeout, oversizedWithLength, oversizedChunked
    case cancelImmediately, cancelWhileHeadHeld, cancelMidBody

    /// Faults after which a download to file keeps its partial in the disk cache's directory
    /// for the next load (a mid-body break of a body with a strong ETag and byte ranges).
    static let leavingResumablePartials: Set<SoakFault> = [.resetMidBody, .resetMidChunkedBody, .stallBeyondIdleTimeout]

    /// Relative frequency in the soak mix: stalls cost a whole idle timeout per attempt, so
    /// they are rare; cheap faults are common.
    var weight: Int {
        switch self {
        case .stallBeyondIdleTimeout: 1
        case .oversizedWithLength, .oversizedChunked, .persistentServerError, .resetMidChunkedBody: 3
        default: 6
        }
    }

    /// The gate a cancel case waits on before cancelling (nil for the others).
    var needsGate: Bool { self == .cancelWhileHeadHeld || self == .cancelMidBody }

    /// The route serving this fault. `image` is a small valid JPEG, `oversized` a body far
    /// beyond the pipeline's maxResponseSize (8 MiB).
    func route(image: [UInt8], oversized: [UInt8], gate: Gate?) -> Route {
        let half = image.count / 2
        switch self {
        case .honest, .cancelImmediately:
            return Route(body: image, contentType: "image/jpeg")
        case .slowDrip:
            // About 5 chunks over 0.25 s.
            return Route(body: image, contentType: "image/jpeg", faults: Faults(bytesPerSecond: image.count * 4))
        case .mislabelledContentType:
            return Route(body: image, contentType: "image/jpeg", faults: Faults(contentTypeOverride: "text/html"))
        case .htmlLabelledAsImage:
            return Route(body: Array("<!doctype html><title>503</title><p>try later</p>".utf8), contentType: "text/html",
                         faults: Faults(contentTypeOverride: "image/jpeg"))
        case .truncatedImage:
            // A complete HTTP transfer of an incomplete JPEG: the decoder, not the transport, notices.
            return Route(body: Array(image.prefix(half)), contentType: "image/jpeg")
        // Every answer breaks after a quarter of the image, a retry's 206 for the rest too: a
        // download to file continues what the attempt before kept (resumable downloads), and
        // three attempts still end a quarter short.
        case .resetMidBody:
            return Route(body: image, contentType: "image/jpeg", faults: Faults(closeAfterBytes: image.count / 4))
        case .resetMidChunkedBody:
            return Route(body: image, contentType: "image/jpeg", faults: Faults(closeAfterBytes: image.count / 4, chunked: true))
        case .serverErrorBurst:
            return Route(body: image, contentType: "image/jpeg").failFirst(2, with: Faults(status: 503))
        case .persistentServerError:
            return Route(body: image, contentType: "image/jpeg", faults: Faults(status: 500))
        case .notFound:
            return Route(body: image, contentType: "image/jpeg", faults: Faults(status: 404))
        case .stallBeyondIdleTimeout:
            return Route(body: image, contentType: "image/jpeg", faults: Faults(stallAfterBytes: half))
        // Paced like a real link (the whole oversized body would take 2 s), so that "cut off
        // early" is measurable: unpaced on loopback, corelibs' URLSession reads far ahead of
        // its delegate and a cancel can arrive after the last byte.
        case .oversizedWithLength:
            return Route(body: oversized, contentType: "image/jpeg", faults: Faults(bytesPerSecond: 4 << 20))
        case .oversizedChunked:
            return Route(body: oversized, contentType: "image/jpeg", faults: Faults(bytesPerSecond: 4 << 20, chunked: true))
        case .cancelWhileHeadHeld:
            return Route(body: image, contentType: "image/jpeg", faults: Faults(gate: gate))
        case .cancelMidBody:
            return Route(body: image, contentType: "image/jpeg", faults: Faults(stallAfterBytes: half, gate: gate))
        }
    }

    /// Whether `outcome` is the one terminal outcome this fault must produce.
    func accepts(_ outcome: Result<ImageResponse, ImageLoadingError>, maxResponseSize: Int) -> Bool {
        switch (self, outcome) {
        case (.honest, .success(let r)), (.slowDrip, .success(let r)), (.mislabelledContentType, .success(let r)),
             (.serverErrorBurst, .success(let r)):
            return r.origin == .network
        case (.htmlLabelledAsImage, .failure(.decoding(.unsupportedFormat))),
             (.truncatedImage, .failure(.decoding(.truncated))),
             (.resetMidBody, .failure(.fetch(.truncated))),
             (.resetMidChunkedBody, .failure(.fetch(.transport))),
             // A download to file's last attempt continued a partial with a chunked 206, whose
             // Content-Range gave the complete length: short of it is a truncation.
             (.resetMidChunkedBody, .failure(.fetch(.truncated))),
             (.stallBeyondIdleTimeout, .failure(.fetch(.timedOut))),
             (.cancelImmediately, .failure(.cancelled)), (.cancelWhileHeadHeld, .failure(.cancelled)),
             (.cancelMidBody, .failure(.cancelled)):
            return true
        case (.persistentServerError, .failure(.fetch(.httpStatus(500, _, _)))), (.notFound, .failure(.fetch(.httpStatus(404, _, _)))):
            return true
        case (.oversizedWithLength, .failure(.fetch(.tooLarge(let limit)))),
             (.oversizedChunked, .failure(.fetch(.tooLarge(let limit)))):
            return limit == maxResponseSize
        default:
            return false
        }
    }

    /// Requests the server must have seen for one load, given `retries` allowed: transient
    /// failures are retried, the rest are not. nil when it depends on timing (a cancel).
    func expectedRequests(retries: Int) -> ClosedRange<Int>? {
        switch self {
        case .serverErrorBurst: 3...3
        case .resetMidBody, .resetMidChunkedBody, .persistentServerError:
            (1 + retries)...(1 + retries)
        // A stall has had the whole idle timeout: it fails once, without a retry.
        case .stallBeyondIdleTimeout: 1...1
        case .cancelImmediately: 0...1
        // Cancelled as soon as the server holds the first request (an idle timeout is not
        // retried, so no second request can be held at the same gate).
        case .cancelWhileHeadHeld, .cancelMidBody: 1...1
        default: 1...1
        }
    }

    /// Picks faults by weight with `random`.
    static func pick(using random: inout some RandomNumberGenerator) -> SoakFault {
        let total = allCases.reduce(0) { $0 + $1.weight }
        var roll = Int.random(in: 0..<total, using: &random)
        for fault in allCases {
            if roll < fault.weight { return fault }
            roll -= fault.weight
        }
        return .honest
    }
}
