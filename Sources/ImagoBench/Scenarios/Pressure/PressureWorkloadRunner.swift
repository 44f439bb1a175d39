import Foundation
import Imago

/// The child side of the pressure scenario (`imago bench-pressure-workload JSON`): loads every
/// URL of the workload through one pipeline, `concurrency` at a time, dropping each image as
/// soon as it arrives, the way a scrolling feed does.
public enum PressureWorkloadRunner {
    /// Runs the workload. `progress` is called after every finished load (true: it loaded),
    /// so the parent learns how far it got even if the kernel kills this process.
    public static func run(_ workload: PressureWorkload,
                           progress: @escaping @Sendable (Bool, PressureWorkloadOutput.Progress) -> Void) async -> PressureWorkloadResult {
        let pipeline = ImagePipeline(configuration: workload.mode.prepareConfiguration())
        let urls = workload.urls.compactMap(URL.init(string:))
        var completed = 0
        var failures: [String: Int] = [:]
        let start = ContinuousClock.now
        await withTaskGroup(of: String?.self) { group in
            var next = 0
            func startNext() {
                let request = ImageRequest(source: .url(urls[next]))
                group.addTask {
                    do {
                        _ = try await pipeline.response(for: request)   // dropped at once
                        progress(true, state(pipeline))
                        return nil
                    } catch {
                        progress(false, state(pipeline))
                        return String(describing: error)
                    }
                }
                next += 1
            }
            while next < min(max(1, workload.concurrency), urls.count) { startNext() }
            while let failure = await group.next() {
                if let failure { failures[failure, default: 0] += 1 } else { completed += 1 }
                if next < urls.count { startNext() }
            }
        }
        let elapsed = ContinuousClock.now - start
        let (seconds, attoseconds) = elapsed.components
        failures["unparseable URL", default: 0] += workload.urls.count - urls.count
        return PressureWorkloadResult(
            loadsAttempted: workload.urls.count, loadsCompleted: completed, failures: failures.filter { $0.value > 0 },
            wallSeconds: Double(seconds) + Double(attoseconds) / 1e18, counters: counters(pipeline.counters.snapshot),
            peakResidentBytes: ProcessMemory.peakResidentBytes())
    }

    static func state(_ pipeline: ImagePipeline) -> PressureWorkloadOutput.Progress {
        .init(counters: counters(pipeline.counters.snapshot), peakResidentBytes: ProcessMemory.peakResidentBytes())
    }

    /// Every field of the pipeline's counters by name, read by reflection so that counters
    /// added to `PipelineCounters.Snapshot` (issue 10: memoryPressureEvents, cacheTrims,
    /// decodeBytesAdmitted) reach the report without a change here.
    static func counters(_ snapshot: PipelineCounters.Snapshot) -> [String: Int] {
        var fields: [String: Int] = [:]
        for child in Mirror(reflecting: snapshot).children {
            if let label = child.label, let value = child.value as? Int { fields[label] = value }
        }
        return fields
    }
}
