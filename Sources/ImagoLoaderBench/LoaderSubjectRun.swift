import Foundation
import ImagoBench
import ImagoConformance
import ImagoTestServer

/// One subject's measurements, in the order they run: time to pixels per fetch strategy
/// (network, memory, disk), requests for crowds of identical loads, throughput, cancel to the
/// request's end (LoaderSubjectRun+Cancel.swift), then resident memory
/// (LoaderSubjectRun+Memory.swift).
@MainActor
struct LoaderSubjectRun {
    let session: LoaderSession
    /// The bench's local server: routes, and the requests it counted.
    let server: TestServer
    let plan: LoaderBenchPlan
    let control: RawControl
    let progress: ProgressReporter
    /// The JPEG timed to pixels (`plan.timedImageSize`).
    let timedImage: [UInt8]
    /// The throughput scenario's distinct images, served at `throughputPaths`.
    let throughputPaths: [String]
    /// One throughput image, served again at the throughput warm-up's own paths.
    let warmUpImage: [UInt8]
    /// How to start this executable again for a memory probe (nil: memory is not measured).
    let probeCommand: (executable: String, arguments: [String])?

    var subject: ConformanceSubject { session.subject }

    /// The fetch strategies measured one by one: those the loader offers, or nil alone (its own
    /// default) when it offers no choice.
    var strategies: [LoaderContext.FetchStrategy?] {
        subject.capabilities.fetchStrategies.isEmpty ? [nil] : subject.capabilities.fetchStrategies
    }

    func rows() async throws -> [BenchResult] {
        var rows: [BenchResult] = []
        for strategy in strategies { rows += try await timeToPixels(strategy: strategy) }
        rows += try await crowds()
        rows += try await throughput()
        rows += try await cancellation()
        rows += try await memory()
        return rows
    }

    /// Interleaved rounds on one loader of `strategy`: a cold network load of a new URL, the
    /// control's load of it, a new model of the same URL (memory), and a new loader instance on
    /// the same directories (disk: the app after a restart).
    func timeToPixels(strategy: LoaderContext.FetchStrategy?) async throws -> [BenchResult] {
        let context = try session.makeContext(strategy: strategy)
        let loader = try session.makeLoader(context)
        let hasMemory = subject.capabilities.contains(.memoryCache), hasDisk = subject.capabilities.contains(.diskCache)
        var network: [Double] = [], controlTimes: [Double] = [], memory: [Double] = [], disk: [Double] = []
        var wrongOrigin: [String: ObservedOrigin] = [:]
        let label = strategy?.rawValue ?? "default"
        // Rounds below zero warm up (connections, first-use allocations) and are not kept.
        for round in -plan.warmupRounds..<plan.timeRounds {
            let path = "/loader/\(subject.name)/\(label)/\(round).jpg"
            // Fresh for a day: a disk cache that honours HTTP freshness serves it without asking.
            server.setRoute(path, Route(body: timedImage, contentType: "image/jpeg",
                                        faults: Faults(headers: ["Cache-Control": "max-age=86400"])))
            defer { server.removeRoute(path) }
            let kept = round >= 0
            let cold = try await session.timedLoad(loader, path: path)
            let controlMs = try await controlTime(path)
            if kept { network.append(cold.ms); controlTimes.append(controlMs) }
            if hasMemory {
                let hit = try await session.timedLoad(loader, path: path)
                if hit.origin != .memory { wrongOrigin["memory"] = hit.origin } else if kept { memory.append(hit.ms) }
            }
            if hasDisk {
                let restarted = try session.makeLoader(context)
                let hit = try await session.timedLoad(restarted, path: path)
                if hit.origin != .disk { wrongOrigin["disk"] = hit.origin } else if kept { disk.append(hit.ms) }
            }
            progress.advance()
        }
        let base = "subject=\(subject.name) strategy=\(label) size=\(plan.timedImageSize.width)x\(plan.timedImageSize.height)"
        var rows = LoaderRows.compared(base + " source=network", metric: "time-to-pixels", unit: "ms",
                                       direction: .lowerIsBetter, loader: network, control: controlTimes)
        for (source, has, capability, samples) in [("memory", hasMemory, "memoryCache", memory),
                                                   ("disk", hasDisk, "diskCache", disk)] {
            let parameters = base + " source=\(source)"
            if !has {
                rows += LoaderRows.notApplicable(parameters, metric: "time-to-pixels", unit: "ms", direction: .lowerIsBetter,
                                                 reason: "\(subject.name) declares no \(source) cache (.\(capability))")
            } else if let origin = wrongOrigin[source] {
                rows += LoaderRows.notApplicable(parameters, metric: "time-to-pixels", unit: "ms", direction: .lowerIsBetter,
                                                 reason: "the repeated load came from \(origin.rawValue), not the \(source) cache")
            } else {
                // The control has no cache: beside a hit stands what the load costs without the loader.
                rows += LoaderRows.compared(parameters, metric: "time-to-pixels", unit: "ms", direction: .lowerIsBetter,
                                            loader: samples, control: controlTimes, includeControl: false)
            }
        }
        return rows
    }

    /// Requests the server saw for `crowd` identical loads started together on a fresh loader,
    /// beside the control's (one request per load: it does not coalesce).
    func crowds() async throws -> [BenchResult] {
        var rows: [BenchResult] = []
        for crowd in plan.crowds {
            var loaderRequests: [Double] = [], controlRequests: [Double] = []
            for round in 0..<plan.crowdRounds {
                let path = "/loader/\(subject.name)/crowd-\(crowd)/\(round).jpg"
                let controlPath = path + ".control"
                for served in [path, controlPath] { server.setRoute(served, Route(body: timedImage, contentType: "image/jpeg")) }
                defer { for served in [path, controlPath] { server.removeRoute(served) } }
                let loader = try session.makeLoader(try session.makeContext(strategy: nil))
                try await session.loadTogether(loader, path: path, count: crowd)
                loaderRequests.append(Double(server.counters.requests(for: path)))
                let url = server.url(for: controlPath)
                do {
                    _ = try await control.load(Array(repeating: url, count: crowd), concurrency: crowd)
                } catch {
                    throw LoaderBenchError.controlFailed(path: controlPath, reason: "\(error)")
                }
                controlRequests.append(Double(server.counters.requests(for: controlPath)))
                progress.advance()
            }
            rows += LoaderRows.compared("subject=\(subject.name) identical-loads=\(crowd)", metric: "requests",
                                        unit: "count", direction: .lowerIsBetter,
                                        loader: loaderRequests, control: controlRequests)
        }
        return rows
    }

    /// Images per second over the distinct images, a fresh loader (cold caches) per run, the
    /// control's run of the same URLs beside it, the order swapped every round. Before its timed
    /// run each side loads `concurrency` other images at that concurrency, untimed: the control's
    /// client would otherwise come warm from its last run (connections open, first-use
    /// allocations made) while each fresh loader starts cold, a bias for the control that is no
    /// cost an app pays per image (it keeps its loader).
    func throughput() async throws -> [BenchResult] {
        var rows: [BenchResult] = []
        let urls = throughputPaths.map(server.url(for:))
        for concurrency in plan.concurrencies {
            var loaderRates: [Double] = [], controlRates: [Double] = []
            for round in 0..<plan.throughputRounds {
                let warmUp = serveWarmUpPaths(concurrency: concurrency, round: round)
                defer { for path in warmUp { server.removeRoute(path) } }
                let loaderWarmUp = warmUp.filter { $0.hasSuffix(".loader.jpg") }
                let controlWarmUp = warmUp.filter { $0.hasSuffix(".control.jpg") }.map(server.url(for:))
                for loaderFirst in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                    if loaderFirst {
                        let loader = try session.makeLoader(try session.makeContext(strategy: nil))
                        _ = try await session.throughput(loader, paths: loaderWarmUp, concurrency: concurrency)
                        loaderRates.append(try await session.throughput(loader, paths: throughputPaths, concurrency: concurrency))
                    } else {
                        controlRates.append(try await controlRate(urls, warmUp: controlWarmUp, concurrency: concurrency))
                    }
                }
                progress.advance()
            }
            rows += LoaderRows.compared("subject=\(subject.name) images=\(urls.count) concurrency=\(concurrency)",
                                        metric: "throughput", unit: "images/s", direction: .higherIsBetter,
                                        loader: loaderRates, control: controlRates)
        }
        return rows
    }

    /// Serves `warmUpImage` at `concurrency` new paths for each side of one throughput round
    /// (`….loader.jpg`, `….control.jpg`) and returns them: distinct URLs, none a throughput one.
    private func serveWarmUpPaths(concurrency: Int, round: Int) -> [String] {
        let base = "/loader/\(subject.name)/warm-up/\(concurrency)/\(round)"
        return ["loader", "control"].flatMap { side in
            (0..<concurrency).map { index in
                let path = "\(base)/\(index).\(side).jpg"
                server.setRoute(path, Route(body: warmUpImage, contentType: "image/jpeg"))
                return path
            }
        }
    }

    /// The control's images per second over `urls`, after an untimed run over `warmUp`.
    private func controlRate(_ urls: [URL], warmUp: [URL], concurrency: Int) async throws -> Double {
        do {
            _ = try await control.load(warmUp, concurrency: concurrency)
            let start = ContinuousClock.now
            _ = try await control.load(urls, concurrency: concurrency)
            return Double(urls.count) / (ContinuousClock.now - start).seconds
        } catch {
            throw LoaderBenchError.controlFailed(path: throughputPaths.first ?? "", reason: "\(error)")
        }
    }

    /// The control's time to pixels for `path`, in milliseconds.
    private func controlTime(_ path: String) async throws -> Double {
        let start = ContinuousClock.now
        do {
            _ = try await control.load(server.url(for: path))
        } catch {
            throw LoaderBenchError.controlFailed(path: path, reason: "\(error)")
        }
        return (ContinuousClock.now - start).seconds * 1000
    }
}
