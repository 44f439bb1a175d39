import Foundation
import Synchronization

/// The decode stage: bounded concurrency and bytes, ordered by the shared work's live priority.
/// A decode declares what it will need, read from the image's header before any pixel is
/// allocated (`Configuration.Memory.decodeBudget`), and is admitted here, in one way for every
/// kind of input (`admit`): a stored body (`decode`) and a body decoded as it arrives
/// (`StreamingDecodeSession`) alike.
struct DecodeStage: Sendable {
    let limiter: StageLimiter
    /// Whether decodes are budgeted at all (`Memory.decodeBudget` is not `Int.max`): the byte
    /// bound, the live-pixel wait and the refusal past the memory limit go together.
    let budgetsMemory: Bool
    /// The memory cache a decode that needs room may trim (nil: none).
    let memoryCache: (any ImageMemoryCaching)?
    /// What the memory decisions read (`Configuration.Memory.environment`).
    let memory: MemoryEnvironment
    /// `ImagePipeline.Configuration.previews`, for streaming decodes.
    let previews: PreviewPolicy?
    let diagnostics: PipelineDiagnostics

    init(configuration: ImagePipeline.Configuration, diagnostics: PipelineDiagnostics) {
        budgetsMemory = configuration.memory.decodeBudget != .max
        memory = configuration.memory.environment
        memoryCache = configuration.dependencies.memoryCache
        let headroom = budgetsMemory
            ? Self.livePixelHeadroom(configuration.memory.environment, cache: memoryCache, diagnostics: diagnostics) : nil
        limiter = StageLimiter(limit: configuration.limits.maxConcurrentDecodes, byteBudget: configuration.memory.decodeBudget,
                               headroom: headroom)
        previews = configuration.previews
        self.diagnostics = diagnostics
    }

    /// Decodes a stored body (bytes in memory or a file) once admitted.
    func decode(_ storage: Payload.Storage, _ request: ImageRequest, _ shared: SharedWork,
                origin: ImageOrigin) async -> Result<ImageResponse, ImageLoadingError> {
        // A header that cannot be read is reported by the decode itself, exactly as before.
        let bytes = (try? storage.memoryEstimate(options: request.options))?.totalBytes ?? 0
        let admission: DecodeAdmission
        switch await admit(bytes: bytes, key: request.key.description, priority: { shared.priority }) {
        case .success(let admitted): admission = admitted
        case .failure(.cancelled): return .failure(.cancelled)
        case .failure(let refusal): return .failure(.decoding(refusal))
        }
        defer { admission.end() }
        do throws(DecodeError) {
            let image = switch storage {
            case .data(let data): try await ImageDecoder.decode(data, options: request.options)
            case .file(let url): try await ImageDecoder.decode(contentsOfFile: url.path, options: request.options)
            }
            return .success(ImageResponse(image: image, origin: origin))
        } catch {
            return .failure(error == .cancelled ? .cancelled : .decoding(error))
        }
    }

    /// Decodes a fetched body; bytes the disk cache took that do not decode are removed.
    func decode(_ payload: Payload, _ request: ImageRequest, _ shared: SharedWork,
                disk: DiskStage) async -> Result<ImageResponse, ImageLoadingError> {
        var outcome = await decode(payload.storage, request, shared, origin: payload.origin)
        // Checked once the decode ended, success included: a descriptor taken before or during
        // the decode may have led it to another image, which must not be delivered as this one.
        let cancelled = if case .failure(let error) = outcome { error.isCancellation } else { false }
        if !cancelled, payload.lostPinnedBody {
            outcome = Self.lostBody(payload)
        }
        if case .failure(.decoding(.unreadable)) = outcome, let key = payload.diskKey, let entry = disk.entry(forKey: key) {
            // Another writer of this key (thread or process) replaced the entry between our store
            // and our read (last writer wins): its copy is as good as ours.
            outcome = await decode(.file(entry.url), request, shared, origin: payload.origin)
        }
        switch outcome {
        case .failure(.decoding(.unreadable)), .success: break
        case .failure(let error) where error.isCancellation: break
        case .failure:
            if let key = payload.diskKey { disk.remove(key) }   // never keep bytes that do not decode
        }
        return outcome.map { $0.reporting(payload.diskCache) }
    }

    /// A held-open body whose descriptor another part of the process closed (`PinnedFile`):
    /// unreadable, so the disk cache's entry is decoded by name instead, and not removed.
    private static func lostBody(_ payload: Payload) -> Result<ImageResponse, ImageLoadingError> {
        let path = if case .file(let url) = payload.storage { url.path } else { "the body" }
        return .failure(.decoding(.unreadable(path: path, reason: "its descriptor was closed by another part of the process")))
    }

    /// The one admission of a decode needing `bytes`: refused past the memory limit, room made
    /// in the caches, then admitted in priority order, and weighed again once admitted: against
    /// the cgroup's limit (`limitRefusal`) and, if it is larger than the budget, beside what the
    /// process holds (`aloneRefusal`). `.cancelled` when the caller was cancelled while
    /// waiting. The admission ends (`DecodeAdmission.end`) when the decode does.
    func admit(bytes: Int, key: String,
               priority: @escaping @Sendable () -> ImageRequestPriority) async -> Result<DecodeAdmission, DecodeError> {
        if let refusal = memoryRefusal(bytes) {
            diagnostics.decodeRefused(key, bytes: bytes, refusal)
            return .failure(refusal)
        }
        makeRoom(for: bytes)
        let (diagnostics, limiter) = (self.diagnostics, self.limiter)
        let queuedAt = diagnostics.now()
        guard let ticket = await limiter.admit(priority: priority, bytes: bytes, onWaitForBytes: {
            diagnostics.decodeWaitedForMemory(key, bytes: bytes, inFlight: limiter.runningBytes, budget: limiter.byteBudget)
        }) else {
            return .failure(.cancelled)
        }
        // Decodes that ended while this one waited put their images in the cache and their pages
        // in the pool again (a decode admitted after its wait for pixel memory ran out, too).
        makeRoom(for: bytes)
        // Weighed again once admitted: the limiter lets a decode through when its wait for a
        // full cgroup ran out (`limitRefusal`), and one larger than the budget runs alone.
        if let refusal = budgetsMemory ? Self.limitRefusal(bytes, memory) ?? aloneRefusal(bytes) : nil {
            ticket.release()
            diagnostics.decodeRefused(key, bytes: bytes, refusal)
            return .failure(refusal)
        }
        let report = diagnostics.decodeStarted(key, bytes: bytes, queuedAt: queuedAt)
        return .success(DecodeAdmission(ticket: ticket, report: report, diagnostics: diagnostics))
    }

    /// Already-decoded pixels, scaled down when the options ask for a smaller size.
    static func fit(_ pixels: PixelBuffer, _ options: DecodeOptions) -> Result<DecodedImage, ImageLoadingError> {
        let size = options.outputSize(width: pixels.width, height: pixels.height, swapsAxes: false)
        let metadata = ImageMetadata(
            format: .png, width: pixels.width, height: pixels.height, bitDepth: 8, colorModel: .rgba,
            hasAlpha: true, orientation: 1, orientationApplied: false, isProgressive: false,
            isArithmeticCoded: false, isLossless: true, isAnimated: false, frameCount: 1)
        guard size.width != pixels.width || size.height != pixels.height else {
            return .success(DecodedImage(pixels: pixels, metadata: metadata))
        }
        do {
            return .success(DecodedImage(pixels: try pixels.resized(to: size), metadata: metadata))
        } catch {
            return .failure(.decoding(error))
        }
    }
}

/// One admitted decode: its slot and bytes in the decode stage, given back (and reported
/// ended, `PipelineDiagnostics.decodeEnded`) exactly once, by `end()` or when it goes away.
final class DecodeAdmission: Sendable {
    private let ticket: StageTicket
    private let report: DecodeReport
    private let diagnostics: PipelineDiagnostics
    private let ended = Mutex(false)

    init(ticket: StageTicket, report: DecodeReport, diagnostics: PipelineDiagnostics) {
        self.ticket = ticket
        self.report = report
        self.diagnostics = diagnostics
    }

    deinit { end() }

    func end() {
        guard !ended.withLock({ ended in defer { ended = true }; return ended }) else { return }
        diagnostics.decodeEnded(report)
        ticket.release()
    }
}

extension Payload.Storage {
    /// What decoding these bytes will need, from their header alone.
    func memoryEstimate(options: DecodeOptions) throws(DecodeError) -> DecodeMemoryEstimate {
        switch self {
        case .data(let data): try ImageDecoder.memoryEstimate(data, options: options)
        case .file(let url): try ImageDecoder.memoryEstimate(contentsOfFile: url.path, options: options)
        }
    }
}
