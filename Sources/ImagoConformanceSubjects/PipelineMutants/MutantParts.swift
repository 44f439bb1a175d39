import Foundation
@_spi(Testing) import Imago
import Synchronization

/// The planted bugs that live outside Imago's code: each is a part the pipeline is given through
/// its public configuration (a clock, a cache policy, a transport), or a mistake of the
/// adapter's own, exactly as an app could make it. `ImagoLoader` asks for them when it builds a
/// pipeline; the bug switched on for the process (`ActiveMutant.current`) decides which, if any.
enum MutantParts {
    /// Puts `mutant`'s part into `configuration` (nothing for a bug that lives elsewhere).
    static func configure(_ configuration: inout ImagePipeline.Configuration, for mutant: Mutant?) {
        if let mutant, BlindParts.configure(&configuration, for: mutant) { return }
        if let mutant, let transport = mistakenTransport(around: configuration.dependencies.transport,
                                                         disk: configuration.dependencies.diskCache, for: mutant) {
            configuration.dependencies.transport = transport
            return
        }
        switch mutant {
        case .retryBackOffOnWallClock?:
            // The back-off sleeps on the wall clock (and dates on the system's), not on the clock the
            // loader was given.
            configuration.dependencies.clock = .system
        case .memPressureIgnored?:
            // The monitor's events arrive; the pipeline was never wired to act on them.
            configuration.memory.respondsToPressure = false
        case .httpStaleServedFresh?:
            // Stored responses are reused without asking, whatever their freshness, by a loader
            // that says it honours HTTP freshness.
            configuration.network.httpCachePolicy = .aggressive
        case .retryClientErrors?:
            // An app that asks every 4xx again, as if the server might change its mind.
            configuration.network.retryPolicy.retriedStatuses.insert(integersIn: 400...499)
        case let share? where MutantTaskPools.plants(share):
            configuration.dependencies.taskPools = MutantTaskPools(mutant: share)
        case .previewIgnoresInterval?:
            // Previews at every scan: the interval the check asked for never reaches the pipeline.
            configuration.previews?.minimumInterval = .zero
        default:
            break
        }
    }

    /// The transport of `mutant`'s bug around `base`, nil when the bug is not a transport's.
    private static func mistakenTransport(around base: any ImageTransport, disk: (any ImageDiskCaching)?,
                                          for mutant: Mutant) -> (any ImageTransport)? {
        if let mistake = BodyMistakeTransport.Mistake(mutant) { return BodyMistakeTransport(base: base, mistake: mistake) }
        switch mutant {
        case .progressCountsChunksTwice: return DoubleCountingTransport(base: base)
        case .errRemembersFailedURLs: return FailedURLListTransport(base: base)
        case .diskStoresBeforeValidating: return disk.map { StoringBeforeValidatingTransport(base: base, disk: $0) }
        case .httpStoresNoStore: return NoStoreDroppingTransport(base: base)
        case .fetchResumeDropsIfRange: return IfRangeDroppingTransport(base: base)
        case .errStatusAfterBody: return ErrorPageReadingTransport(base: base)
        default: return nil
        }
    }

    /// The cache policy of the adapter's requests: with `cacheSkipsDiskLookup` every request
    /// reloads (`.reload`: the disk cache is written but never looked up), else `.useCaches`.
    static func cachePolicy(for mutant: Mutant?) -> ImageCachePolicy {
        mutant == .cacheSkipsDiskLookup ? .reload : .useCaches
    }

    /// What the adapter does with each pipeline it makes: with `memPipelinesRegistered`, it keeps
    /// it in a process-wide list "for debugging", and the pipeline never goes away.
    static func adopt(_ pipeline: ImagePipeline, for mutant: Mutant?) {
        guard mutant == .memPipelinesRegistered else { return }
        registered.withLock { $0.append(pipeline) }
    }

    private static let registered = Mutex<[ImagePipeline]>([])
}

/// `Mutant.errRemembersFailedURLs`: an SDWebImage-style failed-URL list, kept by the transport: a
/// URL whose fetch failed fails at once afterwards, with the same error and without a request.
final class FailedURLListTransport: ImageTransport {
    private let base: any ImageTransport
    private let failed = Mutex<[URL: FetchError]>([:])

    init(base: any ImageTransport) { self.base = base }

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        if let error = failed.withLock({ $0[request.url] }) { throw error }
        do {
            return try await base.fetch(request, progress: progress)
        } catch {
            if error != .cancelled { failed.withLock { $0[request.url] = error } }
            throw error
        }
    }
}

/// `Mutant.progressCountsChunksTwice`: a transport that counts every chunk twice in the progress
/// it reports (the body itself is untouched).
struct DoubleCountingTransport: ImageTransport {
    let base: any ImageTransport

    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        try await base.fetch(request) { reported in
            progress(FetchProgress(received: 2 * reported.received, expected: reported.expected))
        }
    }
}
