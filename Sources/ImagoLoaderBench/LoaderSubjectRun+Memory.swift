import Foundation
import ImagoBench

extension LoaderSubjectRun {
    /// Resident memory while distinct images load through a fresh loader, beside the control
    /// loading the same images: the peak growth over the resident size at the start (the
    /// kernel's high-water mark, reset first), and what is still resident once the loader, its
    /// models and its caches are released (the heap trimmed). Rounds alternate loader and control.
    func memory() async throws -> [BenchResult] {
        let paths = Array(throughputPaths.prefix(plan.memoryImages))
        let urls = paths.map(server.url(for:))
        var loaderPeak: [Double] = [], loaderHeld: [Double] = [], controlPeak: [Double] = [], controlHeld: [Double] = []
        let parameters = "subject=\(subject.name) images=\(paths.count) concurrency=\(plan.memoryConcurrency) "
            + "size=\(plan.throughputImageSize.width)x\(plan.throughputImageSize.height)"
        for _ in 0..<plan.memoryRounds {
            let loaderGrowth = try await ResidentGrowth.measure(settle: plan.releaseSettle) {
                let loader = try session.makeLoader(try session.makeContext(strategy: nil))
                _ = try await session.throughput(loader, paths: paths, concurrency: plan.memoryConcurrency)
            }
            let controlGrowth = try await ResidentGrowth.measure(settle: plan.releaseSettle) {
                do {
                    _ = try await control.load(urls, concurrency: plan.memoryConcurrency)
                } catch {
                    throw LoaderBenchError.controlFailed(path: paths.first ?? "", reason: "\(error)")
                }
            }
            progress.advance()
            guard let loaderGrowth, let controlGrowth else {
                let reason = "this system does not report the resident high-water mark or refused to reset it "
                    + "(/proc/self/status VmHWM, /proc/self/clear_refs)"
                return ["peak-rss-growth", "held-after"].flatMap {
                    LoaderRows.notApplicable(parameters, metric: $0, unit: "MiB", direction: .lowerIsBetter, reason: reason)
                }
            }
            loaderPeak.append(loaderGrowth.peakMiB)
            loaderHeld.append(loaderGrowth.heldMiB)
            controlPeak.append(controlGrowth.peakMiB)
            controlHeld.append(controlGrowth.heldMiB)
        }
        return LoaderRows.compared(parameters, metric: "peak-rss-growth", unit: "MiB", direction: .lowerIsBetter,
                                   loader: loaderPeak, control: controlPeak)
            // What stays is a few MiB either way: a ratio of two figures near zero would be noise.
            + LoaderRows.compared(parameters, metric: "held-after", unit: "MiB", direction: .lowerIsBetter,
                                  loader: loaderHeld, control: controlHeld, includeOverhead: false)
    }
}

/// Resident-set growth of this process around some work, from /proc/self/status.
@MainActor
enum ResidentGrowth {
    /// Trims the heap, reads the resident size and resets the high-water mark, runs `work`
    /// (whatever it makes is released when it returns), waits `settle` for tasks the work left
    /// to end, trims again and reads. Nil when the kernel does not report or reset the peak.
    static func measure(settle: Duration, _ work: () async throws -> Void) async throws
        -> (peakMiB: Double, heldMiB: Double)? {
        ProcessMemory.trimHeap()
        guard let before = ProcessMemory.residentBytes(), ProcessMemory.resetPeak() else { return nil }
        try await work()
        guard let peak = ProcessMemory.peakResidentBytes() else { return nil }
        try await Task.sleep(for: settle)
        ProcessMemory.trimHeap()
        guard let after = ProcessMemory.residentBytes() else { return nil }
        let mib = Double(1 << 20)
        return (Double(peak - before) / mib, Double(after - before) / mib)
    }
}
