import ArgumentParser
import Foundation
import Imago

/// `imago memory [--watch SECONDS]`: the effective memory limit as one JSON line, then (with
/// --watch) memory pressure events as JSON lines.
struct MemoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Print the effective memory limit (cgroups, physical memory) as JSON; --watch prints pressure events.",
        discussion: """
            The first line has: bytes, highBytes, physicalBytes, source, cgroupDirectory, \
            cgroupVersion, explanation, usageBytes, usageBesidesPageCacheBytes (what the decode \
            stage weighs: usage less the page cache the kernel reclaims), activeMechanisms, \
            unavailableMechanisms (null where unknown). With --watch, one line per pressure event (level, mechanism, \
            elapsedSeconds, usageBytes, limitBytes, limitSource), then {"summary":{...}} when \
            the time is up or on Ctrl-C. Exit status: 0; 64 on bad usage.
            """)

    @Option(help: "Print memory pressure events for this many seconds (Ctrl-C ends earlier).")
    var watch: Double?

    @Option(help: "With --watch: first deliver one simulated event of this level (normal, warning, critical).")
    var simulate: MemoryPressureLevel?

    func validate() throws {
        if let watch, !(watch > 0) { throw ValidationError("--watch must be a positive number of seconds") }
        if simulate != nil, watch == nil { throw ValidationError("--simulate needs --watch") }
    }

    func run() async throws {
        let monitor = MemoryPressureMonitor.shared
        guard let watch else {
            let observation = monitor.addObserver { _ in }   // registers the sources, to list them
            Self.emit(Self.limitLine(monitor))
            observation.cancel()
            return
        }
        // Before anything is printed, so an early Ctrl-C is not lost; SIGINT and SIGTERM end the
        // watch with its summary instead of killing the process mid-line.
        let (interrupted, interrupt) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let signalSources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { interrupt.yield() }
            source.resume()
            return source
        }
        defer { signalSources.forEach { $0.cancel() } }
        let events = monitor.events       // starts the watcher
        Self.emit(Self.limitLine(monitor))
        let start = ContinuousClock.now
        if let simulate { monitor.simulate(simulate) }
        let count = await withTaskGroup(of: Int?.self) { group in
            group.addTask {
                var count = 0
                for await event in events {
                    Self.emit(Self.eventLine(event, since: start))
                    count += 1
                }
                return count
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(watch))
                return nil
            }
            group.addTask {
                for await _ in interrupted { break }
                return nil
            }
            _ = await group.next()   // the time is up or Ctrl-C (the events never end first)
            group.cancelAll()
            var count = 0
            for await result in group { count += result ?? 0 }
            return count
        }
        var summary = JSONLine()
        summary.add("events", count)
        summary.add("seconds", (ContinuousClock.now - start).milliseconds / 1000)
        var line = JSONLine()
        line.add("summary", object: summary)
        Self.emit(line)
    }

    private static func limitLine(_ monitor: MemoryPressureMonitor) -> JSONLine {
        let limit = MemoryLimit.refresh()
        var line = JSONLine()
        line.add("bytes", limit.bytes)
        line.add("highBytes", limit.highBytes)
        line.add("physicalBytes", limit.physicalBytes)
        line.add("source", limit.source.rawValue)
        line.add("cgroupDirectory", limit.cgroupDirectory)
        line.add("cgroupVersion", limit.cgroupVersion)
        line.add("explanation", limit.explanation)
        line.add("usageBytes", limit.usageBytes())
        line.add("usageBesidesPageCacheBytes", limit.usageBesidesPageCacheBytes())
        line.add("activeMechanisms", strings: monitor.activeMechanisms)
        line.add("unavailableMechanisms", strings: monitor.unavailableMechanisms)
        return line
    }

    private static func eventLine(_ event: MemoryPressureEvent, since start: ContinuousClock.Instant) -> JSONLine {
        var line = JSONLine()
        line.add("level", event.level.description)
        line.add("mechanism", event.mechanism.rawValue)
        line.add("elapsedSeconds", (event.time - start).milliseconds / 1000)
        line.add("usageBytes", event.usageBytes)
        line.add("limitBytes", event.limit.bytes)
        line.add("limitSource", event.limit.source.rawValue)
        return line
    }

    /// Unbuffered, so a reader of the pipe sees each event as it happens.
    private static func emit(_ line: JSONLine) {
        FileHandle.standardOutput.write(Data((line.text + "\n").utf8))
    }
}

extension MemoryPressureLevel: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "normal": self = .normal
        case "warning": self = .warning
        case "critical": self = .critical
        default: return nil
        }
    }
}
