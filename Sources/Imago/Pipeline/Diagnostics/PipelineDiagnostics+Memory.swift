import Logging

/// One admitted decode as it is reported: its key, the bytes it declared, and when it started
/// (nil when no one reads stage timings).
struct DecodeReport: Sendable {
    let key: String
    let bytes: Int
    let startedAt: ContinuousClock.Instant?
}

/// The decode stage's admissions and the pipeline's memory decisions.
extension PipelineDiagnostics {
    /// A decode of `key` needing `bytes` was refused (`DecodeError.exceedsMemoryLimit`).
    func decodeRefused(_ key: String, bytes: Int, _ refusal: DecodeError) {
        record { $0.decodesRefusedForMemory += 1 }
        metrics?.decodeMemoryRefusals.increment()
        logger.debug("Decode refused for memory", metadata: ["key": "\(key)", "bytes": "\(bytes)", "reason": "\(refusal)"])
    }

    /// A decode of `key` needing `bytes` queues although a decode slot is free: the decode
    /// budget (`budget` bytes, `inFlight` of them declared by running decodes) or a pressure
    /// hold is what it waits for.
    func decodeWaitedForMemory(_ key: String, bytes: Int, inFlight: Int, budget: Int) {
        record { $0.decodesWaitedForMemory += 1 }
        metrics?.decodeMemoryWaits.increment()
        logger.debug("Decode waiting for memory", metadata: [
            "key": "\(key)", "bytes": "\(bytes)", "in_flight_bytes": "\(inFlight)", "budget_bytes": "\(budget)",
        ])
    }

    /// A decode of `key` declaring `bytes` was admitted, after queueing since `queuedAt`.
    func decodeStarted(_ key: String, bytes: Int, queuedAt: ContinuousClock.Instant?) -> DecodeReport {
        let startedAt = now()
        record {
            $0.decodes += 1
            $0.decodeBytesAdmitted += bytes
        }
        emit(.decodeStart, key, at: startedAt ?? .now)
        if let metrics {
            metrics.decodes.increment()
            metrics.decodeBytesAdmitted.increment(by: bytes)
            metrics.decodeBytesInFlight.increment(by: Double(bytes))
            if let queuedAt, let startedAt { metrics.decodeQueueWait.recordNanoseconds((startedAt - queuedAt).nanoseconds) }
        }
        logger.trace("Decode started", metadata: ["key": "\(key)", "bytes": "\(bytes)"])
        return DecodeReport(key: key, bytes: bytes, startedAt: startedAt)
    }

    /// The admitted decode ended (whatever its outcome) and gave its slot and bytes back.
    func decodeEnded(_ decode: DecodeReport) {
        let now = now()
        emit(.decodeEnd, decode.key, at: now ?? .now)
        if let metrics {
            metrics.decodeBytesInFlight.decrement(by: Double(decode.bytes))
            if let now, let startedAt = decode.startedAt { metrics.decodeDuration.recordNanoseconds((now - startedAt).nanoseconds) }
        }
        logger.trace("Decode ended", metadata: ["key": "\(decode.key)"])
    }

    /// The memory cache was trimmed from `fromCost` to `toCost` bytes.
    func memoryCacheTrimmed(_ cause: PipelineMetrics.TrimCause, fromCost: Int, toCost: Int) {
        record { $0.cacheTrims += 1 }
        metrics?.cacheTrims[cause]?.increment()
        logger.debug("Trimmed the memory cache", metadata: [
            "cause": "\(cause.rawValue)", "from_bytes": "\(fromCost)", "to_bytes": "\(toCost)",
        ])
    }

    /// The pipeline observed a memory-pressure event (warning or critical) and responds to it.
    func memoryPressure(_ level: MemoryPressureLevel) {
        record { $0.memoryPressureEvents += 1 }
        metrics?.pressureEvents[level]?.increment()
        logger.debug("Memory pressure", metadata: ["level": "\(level)"])
    }
}
