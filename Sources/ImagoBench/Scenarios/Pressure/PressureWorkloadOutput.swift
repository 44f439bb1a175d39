import Foundation

/// What `imago bench-pressure-workload` writes on standard output: after every finished load a
/// progress line, `+ {json}` (loaded) or `- {json}` (failed), holding the pipeline's counters
/// and the process's peak so far; at the end one result line, `{json}`. A child the OOM killer
/// ends never writes the result, but every progress line before the kill reaches the parent
/// (each is one unbuffered write), so a killed run still says how far it got and what the
/// pipeline had seen (pressure events, cache trims) by then.
public enum PressureWorkloadOutput {
    /// The state after one finished load.
    public struct Progress: Codable, Sendable, Equatable {
        /// The pipeline's counters by field name.
        public var counters: [String: Int]
        /// The process's resident high-water mark (`VmHWM`) so far, or nil off Linux.
        public var peakResidentBytes: Int?

        public init(counters: [String: Int], peakResidentBytes: Int?) {
            self.counters = counters
            self.peakResidentBytes = peakResidentBytes
        }
    }

    static let loadedMarker = "+", failedMarker = "-"

    public static func progressLine(loaded: Bool, _ progress: Progress) -> String {
        (loaded ? loadedMarker : failedMarker) + " " + json(progress)
    }

    public static func resultLine(_ result: PressureWorkloadResult) -> String {
        json(result)
    }

    /// What a child's output says.
    public struct Parsed: Sendable, Equatable {
        /// The result line, or nil when the child never wrote it (killed, crashed).
        public var result: PressureWorkloadResult?
        /// Progress lines of successful loads.
        public var loaded = 0
        /// Progress lines of failed loads.
        public var failed = 0
        /// The last progress line's state.
        public var lastProgress: Progress?
    }

    public static func parse(_ output: String) -> Parsed {
        var parsed = Parsed()
        for line in output.split(separator: "\n") {
            if line.hasPrefix("{") {
                parsed.result = try? JSONDecoder().decode(PressureWorkloadResult.self, from: Data(line.utf8))
                continue
            }
            let marker = line.prefix(1)
            guard marker == loadedMarker || marker == failedMarker else { continue }
            if marker == loadedMarker { parsed.loaded += 1 } else { parsed.failed += 1 }
            let body = line.dropFirst().drop { $0 == " " }
            if let progress = try? JSONDecoder().decode(Progress.self, from: Data(body.utf8)) { parsed.lastProgress = progress }
        }
        return parsed
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
