import Foundation

/// Reads a finished `imago bench` run back: its `results.csv` (every row, skipped ones too)
/// joined with the raw samples of `samples.csv` beside it, as ``BenchResult``s.
public enum RunReader {
    /// Why a run cannot be read; `description` is one readable line.
    public enum ReadError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The file is not there or cannot be read (sysexits' EX_NOINPUT: exit 66).
        case unreadable(path: String, reason: String)
        /// `results.csv` is there but `samples.csv` is not: a run from before samples were kept
        /// (also exit 66: the input the comparison needs does not exist).
        case noSamples(run: String)
        /// The file is there but is not what `imago bench` writes (EX_DATAERR: exit 65).
        case malformed(path: String, line: Int, reason: String)

        /// One line naming the file (and line) and what is wrong, for standard error.
        public var description: String {
            switch self {
            case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
            case .noSamples(let run): "\(run) has no \(SamplesCSV.fileName): it was written before imago bench kept "
                + "its samples, so it cannot be compared; run imago bench again"
            case .malformed(let path, let line, let reason): "\(path):\(line): \(reason)"
            }
        }

        /// The exit status for this error (sysexits.h), as `imago decode` and `--ca-file` use them.
        public var exitStatus: Int32 {
            if case .malformed = self { return 65 }
            return 66
        }
    }

    /// The run at `path`: a run directory, its `results.csv` (then `samples.csv` is read from
    /// the same directory), or a reports root (`--out` of `imago bench`, default `Reports`),
    /// whose `latest` run is read. Rows keep the order of `results.csv`.
    public static func load(_ path: String) throws(ReadError) -> [BenchResult] {
        var isDirectory: ObjCBool = false
        var path = path
        let latest = URL(fileURLWithPath: path).appendingPathComponent("latest").path
        if !FileManager.default.fileExists(atPath: URL(fileURLWithPath: path).appendingPathComponent("results.csv").path),
           FileManager.default.fileExists(atPath: latest) {
            path = latest
        }
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let directory = exists && isDirectory.boolValue ? URL(fileURLWithPath: path, isDirectory: true)
            : URL(fileURLWithPath: path).deletingLastPathComponent()
        let resultsPath = exists && isDirectory.boolValue ? directory.appendingPathComponent("results.csv").path : path
        let samplesPath = directory.appendingPathComponent(SamplesCSV.fileName).path
        let resultsText = try read(resultsPath)
        guard FileManager.default.fileExists(atPath: samplesPath) else { throw .noSamples(run: path) }
        return try results(resultsText, samples: try read(samplesPath), resultsPath: resultsPath, samplesPath: samplesPath)
    }

    /// Joins the two files' texts; the paths only name them in errors.
    public static func results(_ resultsText: String, samples samplesText: String,
                               resultsPath: String = "results.csv",
                               samplesPath: String = SamplesCSV.fileName) throws(ReadError) -> [BenchResult] {
        let samples = try sampleValues(try records(samplesText, columns: SamplesCSV.columns, path: samplesPath), path: samplesPath)
        var results: [BenchResult] = [], seen: Set<RowKey> = [], used: Set<RowKey> = []
        for (index, fields) in try records(resultsText, columns: CSVWriter.columns, path: resultsPath).enumerated() {
            func malformed(_ reason: String) -> ReadError { .malformed(path: resultsPath, line: index + 2, reason: reason) }
            let key = RowKey(scenario: fields[0], parameters: fields[1], metric: fields[2])
            guard seen.insert(key).inserted else { throw malformed("\(key) appears twice") }
            guard let direction = MetricDirection(rawValue: fields[4]) else {
                throw malformed("direction \"\(fields[4])\" is neither \"lower is better\" nor \"higher is better\"")
            }
            let countField = fields[Self.samplesColumn]
            guard let count = Int(countField), count >= 0 else { throw malformed("sample count \"\(countField)\" is not a number") }
            let note = fields[Self.noteColumn]
            if count == 0 {
                let reason = note.hasPrefix("skipped: ") ? String(note.dropFirst("skipped: ".count)) : note
                results.append(BenchResult(scenario: key.scenario, parameters: key.parameters, metric: key.metric,
                                           unit: fields[3], direction: direction, skipped: reason.isEmpty ? "no samples" : reason))
                continue
            }
            let values = samples[key] ?? []
            guard values.count == count else {
                throw malformed("\(key) has \(count) samples here but \(values.count) in \(samplesPath)")
            }
            used.insert(key)
            results.append(BenchResult(scenario: key.scenario, parameters: key.parameters, metric: key.metric,
                                       unit: fields[3], direction: direction, samples: values))
        }
        if let stray = samples.keys.first(where: { !used.contains($0) }) {
            throw .malformed(path: samplesPath, line: 1, reason: "\(stray) has samples but no measured row in \(resultsPath)")
        }
        return results
    }

    /// Where `results.csv` keeps the sample count and the note (`CSVWriter.columns`).
    private static let samplesColumn = CSVWriter.columns.firstIndex(of: "samples")!
    private static let noteColumn = CSVWriter.columns.firstIndex(of: "note")!

    private static func read(_ path: String) throws(ReadError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied or not a file" : "no such file"
            throw .unreadable(path: path, reason: reason)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .malformed(path: path, line: 1, reason: "not UTF-8 text")
        }
        return text
    }

    /// The records after a header that must be exactly `columns`, each with that many fields.
    private static func records(_ text: String, columns: [String], path: String) throws(ReadError) -> [[String]] {
        let records: [[String]]
        do { records = try CSVReader.records(text) } catch {
            throw .malformed(path: path, line: error.line, reason: error.reason)
        }
        guard let header = records.first, header == columns else {
            throw .malformed(path: path, line: 1, reason: "the header is not \"\(columns.joined(separator: ","))\"")
        }
        for (index, record) in records.dropFirst().enumerated() where record.count != columns.count {
            throw .malformed(path: path, line: index + 2, reason: "\(record.count) fields, expected \(columns.count)")
        }
        return Array(records.dropFirst())
    }

    /// Each row's samples in measured order (the `sample` column must count 1, 2, 3…).
    private static func sampleValues(_ records: [[String]], path: String) throws(ReadError) -> [RowKey: [Double]] {
        var values: [RowKey: [Double]] = [:]
        for (index, fields) in records.enumerated() {
            let key = RowKey(scenario: fields[0], parameters: fields[1], metric: fields[2])
            guard let value = Double(fields[4]), value.isFinite else {
                throw .malformed(path: path, line: index + 2, reason: "value \"\(fields[4])\" is not a finite number")
            }
            guard Int(fields[3]) == (values[key]?.count ?? 0) + 1 else {
                throw .malformed(path: path, line: index + 2, reason: "sample \"\(fields[3])\" of \(key) is out of order")
            }
            values[key, default: []].append(value)
        }
        return values
    }
}
