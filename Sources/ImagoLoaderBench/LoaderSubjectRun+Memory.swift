import Foundation
import ImagoBench

extension LoaderSubjectRun {
    /// Resident memory while distinct images load through a fresh loader, beside the control
    /// loading the same images, each in a fresh process (`LoaderMemoryProbe`): the peak growth
    /// over the resident size before the loads, and what is still resident once the loader (its
    /// models, its caches) is released. Rounds alternate loader and control; none without an
    /// executable to start again (rows "n/a" then), none at all when `plan.memoryRounds` is 0. A
    /// probe that fails makes the two memory rows skipped with its error, not the subject's run.
    func memory() async throws -> [BenchResult] {
        guard plan.memoryRounds > 0 else { return [] }
        let paths = Array(throughputPaths.prefix(plan.memoryImages))
        let parameters = "subject=\(subject.name) images=\(paths.count) concurrency=\(plan.memoryConcurrency) "
            + "size=\(plan.throughputImageSize.width)x\(plan.throughputImageSize.height)"
        guard let probeCommand else {
            let reason = "no executable to measure memory in a fresh process (the bench's own executable is unknown)"
            return ["peak-rss-growth", "held-after"].flatMap {
                LoaderRows.notApplicable(parameters, metric: $0, unit: "MiB", direction: .lowerIsBetter, reason: reason)
            }
        }
        do {
            return try await memory(paths: paths, parameters: parameters, command: probeCommand)
        } catch {
            // The memory rows say why; the subject's other rows stand.
            progress.log("loader: \(error)")
            return ["peak-rss-growth", "held-after"].map {
                BenchResult(scenario: LoaderRows.scenario, parameters: parameters + " variant=\(LoaderRows.loaderVariant)",
                            metric: $0, unit: "MiB", direction: .lowerIsBetter, skipped: "\(error)")
            }
        }
    }

    private func memory(paths: [String], parameters: String,
                        command probeCommand: (executable: String, arguments: [String])) async throws -> [BenchResult] {
        var peak: [LoaderMemoryProbe.Side: [Double]] = [:], held: [LoaderMemoryProbe.Side: [Double]] = [:]
        let urls = paths.map(server.url(for:))
        for _ in 0..<plan.memoryRounds {
            for side in [LoaderMemoryProbe.Side.loader, .control] {
                let probe = LoaderMemoryProbe(subject: subject.name, side: side, urls: urls,
                                              concurrency: plan.memoryConcurrency, scratch: session.scratch.path,
                                              loadTimeoutSeconds: plan.loadTimeout.seconds)
                let reading = try await probe.measure(executable: probeCommand.executable, arguments: probeCommand.arguments)
                if !reading.imagesReleased {
                    progress.log("loader: \(subject.name): the \(side.rawValue)'s images were still alive 5 s after "
                                 + "its release; held-after counts them")
                }
                peak[side, default: []].append(Double(reading.peakGrowthBytes) / Self.mebibyte)
                held[side, default: []].append(Double(reading.heldAfterBytes) / Self.mebibyte)
            }
            progress.advance()
        }
        return LoaderRows.compared(parameters, metric: "peak-rss-growth", unit: "MiB", direction: .lowerIsBetter,
                                   loader: peak[.loader] ?? [], control: peak[.control] ?? [])
            // What stays is near zero on both sides: a ratio of two such figures would be noise.
            + LoaderRows.compared(parameters, metric: "held-after", unit: "MiB", direction: .lowerIsBetter,
                                  loader: held[.loader] ?? [], control: held[.control] ?? [], includeOverhead: false)
    }

    private static let mebibyte = Double(1 << 20)
}
