import Foundation
import Imago

/// The JSON lines `imago load` prints, in their documented key order.
enum LoadLines {
    /// `{"source":…,"phase":…,…}`: one per published phase. `newPreview` adds a loading
    /// phase's preview as `"preview":{"detail":…,"width":…,"height":…,"receivedBytes":…}`
    /// (the caller passes it once per preview; later progress lines carry it too).
    /// `rememberedFailure` adds `"diskCache":"rememberedFailure"` to a failure line: the disk
    /// cache repeated a fresh 404 or 410 without a request (negative caching).
    static func phase(_ phase: ImagePhase, source: String, newPreview: Bool = false,
                      rememberedFailure: Bool = false) -> String {
        var line = JSONLine()
        line.add("source", source)
        line.add("phase", phase.name)
        switch phase {
        case .empty: break
        case .loading(let progress, _, let preview):
            line.add("received", progress?.received ?? 0)
            if let expected = progress?.expected { line.add("expected", expected) }
            if newPreview, let preview {
                var shown = JSONLine()
                shown.add("detail", preview.detail)
                shown.add("width", preview.pixels.width)
                shown.add("height", preview.pixels.height)
                shown.add("receivedBytes", preview.receivedBytes)
                line.add("preview", object: shown)
            }
        case .success(let response):
            line.add("origin", response.origin.rawValue)
            line.add("width", response.pixels.width)
            line.add("height", response.pixels.height)
            line.add("format", response.image.metadata.format.rawValue)
            if let disk = response.diskCache {
                line.add("diskCache", disk.description)
                if let reason = disk.notStoredReason { line.add("notStoredReason", reason.rawValue) }
            }
        case .failure(let error):
            line.add("error", error.description)
            line.add("detail", error.detail)
            if rememberedFailure { line.add("diskCache", "rememberedFailure") }
        }
        return line.text
    }

    /// `{"source":…,"backgroundRevalidation":…}`: one per revalidation a stale-while-revalidate
    /// load started, once it ended: `revalidated`, `replaced`, `notStored` (with
    /// `notStoredReason`) or `failed` (with `error`).
    static func backgroundRevalidation(_ revalidation: BackgroundRevalidation) -> String {
        var line = JSONLine()
        line.add("source", revalidation.url.absoluteString)
        if let failure = revalidation.failure {
            line.add("backgroundRevalidation", "failed")
            line.add("error", failure.description)
        } else if let disk = revalidation.diskCache {
            line.add("backgroundRevalidation", disk.description)
            if let reason = disk.notStoredReason { line.add("notStoredReason", reason.rawValue) }
        }
        return line.text
    }
}

/// The closing `{"summary":…}` line: loads, successes, requests, decodes, per-stage totals and
/// responses per protocol.
struct LoadSummary {
    let events: [PipelineEvent]
    let counters: PipelineCounters.Snapshot
    /// Whether the run had a disk cache (its counts are printed only then).
    let diskCache: Bool
    let loads: Int
    let succeeded: Int
    let elapsed: Duration

    var line: String {
        var stages = JSONLine()
        stages.add("fetchMs", total(.fetchStart, .fetchEnd))
        stages.add("firstByteMs", total(.fetchStart, .firstByte))
        stages.add("decodeMs", total(.decodeStart, .decodeEnd))
        var summary = JSONLine()
        summary.add("loads", loads)
        summary.add("succeeded", succeeded)
        summary.add("fetches", events.filter { $0.kind == .fetchStart }.count)
        summary.add("retries", events.filter { $0.kind == .retry }.count)
        summary.add("decodes", events.filter { $0.kind == .decodeStart }.count)
        summary.add("totalMs", elapsed.milliseconds)
        summary.add("stages", object: stages)
        if let protocols { summary.add("protocols", object: protocols) }
        if diskCache {
            var disk = JSONLine()
            disk.add("fresh", counters.diskFreshHits)
            disk.add("revalidated", counters.diskRevalidations)
            disk.add("stale", counters.diskStaleHits)
            disk.add("rememberedFailures", counters.diskRememberedFailures)
            disk.add("stored", counters.diskStores)
            disk.add("replaced", counters.diskReplacements)
            disk.add("notStored", counters.diskNotStored)
            disk.add("resumedDownloads", counters.resumedDownloads)
            summary.add("diskCache", object: disk)
        }
        var line = JSONLine()
        line.add("summary", object: summary)
        return line.text
    }

    /// Responses per protocol (`{"HTTP/2.0":3}`), from the `fetchEnd` events that say which;
    /// nil when none does (no request, or a transport that cannot tell).
    private var protocols: JSONLine? {
        let versions = events.compactMap { $0.kind == .fetchEnd ? $0.httpVersion : nil }
        guard !versions.isEmpty else { return nil }
        var line = JSONLine()
        for (version, count) in Dictionary(grouping: versions, by: { $0 }).mapValues(\.count).sorted(by: { $0.key < $1.key }) {
            line.add(version, count)
        }
        return line
    }

    /// Total time per stage across all loads, from the pipeline's timestamped events.
    private func total(_ begin: PipelineEvent.Kind, _ end: PipelineEvent.Kind) -> Double {
        var open: [String: ContinuousClock.Instant] = [:]
        var sum = Duration.zero
        for event in events {
            if event.kind == begin { open[event.key] = event.time }
            if event.kind == end, let started = open.removeValue(forKey: event.key) { sum += event.time - started }
        }
        return sum.milliseconds
    }
}
