import Foundation
import Testing
@testable import ImagoBench

/// `samples.csv` written and read back with `results.csv`, and the reader's typed errors.
@Suite struct RunReaderTests {
    private let rows = [
        BenchResult(scenario: "decode", parameters: "format=png, odd \"name\"", metric: "throughput", unit: "MP/s",
                    direction: .higherIsBetter, samples: [41.25, 0.1 + 0.2, 1e-7, 39]),
        BenchResult(scenario: "feed", parameters: "rtt=50ms", metric: "time-to-all", unit: "ms", direction: .lowerIsBetter,
                    skipped: "nginx not installed"),
    ]

    @Test func samplesRoundTripExactlyWithTheirRows() throws {
        let read = try RunReader.results(CSVWriter.csv(rows), samples: SamplesCSV.csv(rows))
        #expect(read == rows)
        #expect(SamplesCSV.csv(rows).split(separator: "\n")[1] == "decode,\"format=png, odd \"\"name\"\"\",throughput,1,41.25")
    }

    @Test func aRunDirectoryOrItsCSVIsRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-runreader-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try CSVWriter.csv(rows).write(to: directory.appendingPathComponent("results.csv"), atomically: true, encoding: .utf8)
        #expect(throws: RunReader.ReadError.noSamples(run: directory.path)) { try RunReader.load(directory.path) }
        #expect(RunReader.ReadError.noSamples(run: "r").exitStatus == 66)
        try SamplesCSV.csv(rows).write(to: directory.appendingPathComponent("samples.csv"), atomically: true, encoding: .utf8)
        #expect(try RunReader.load(directory.path) == rows)
        #expect(try RunReader.load(directory.appendingPathComponent("results.csv").path) == rows)
        let missing = directory.appendingPathComponent("nope").path
        #expect(throws: RunReader.ReadError.unreadable(path: missing + "/results.csv", reason: "no such file")) {
            try RunReader.load(missing + "/results.csv")
        }
    }

    @Test(arguments: [
        // A header that is not the bench's.
        ("a,b\n", "results.csv:1: the header is not"),
        // A measured row whose samples are not all there.
        (CSVWriter.columns.joined(separator: ",") + "\ndecode,p,m,ms,lower is better,1,1,1,1,1,1,1,3,\n",
         "results.csv:2: decode [p] m has 3 samples here but 0 in samples.csv"),
        // An unknown direction.
        (CSVWriter.columns.joined(separator: ",") + "\ndecode,p,m,ms,sideways,,,,,,,,0,skipped: x\n", "results.csv:2: direction \"sideways\""),
        // A row too short.
        (CSVWriter.columns.joined(separator: ",") + "\ndecode,p\n", "results.csv:2: 2 fields, expected \(CSVWriter.columns.count)"),
        // A quote never closed.
        (CSVWriter.columns.joined(separator: ",") + "\n\"decode,p\n", "results.csv:2: a quoted field is never closed"),
    ])
    func malformedResultsAreNamedWithTheirLine(results: String, message: String) {
        do {
            _ = try RunReader.results(results, samples: SamplesCSV.csv([]))
            Issue.record("no error for \(results)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
            #expect(error.exitStatus == 65)
        }
    }

    @Test(arguments: [
        ("decode,p,m,1,fast\n", "samples.csv:2: value \"fast\" is not a finite number"),
        ("decode,p,m,2,1\n", "samples.csv:2: sample \"2\" of decode [p] m is out of order"),
        ("other,p,m,1,1\n", "samples.csv:1: other [p] m has samples but no measured row"),
    ])
    func malformedSamplesAreNamed(samples: String, message: String) {
        do {
            _ = try RunReader.results(CSVWriter.csv([]), samples: SamplesCSV.columns.joined(separator: ",") + "\n" + samples)
            Issue.record("no error for \(samples)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
    }

    @Test func csvRecordsHandleQuotesCommasAndLineBreaks() throws {
        #expect(try CSVReader.records("a,\"b,c\",\"d\"\"e\"\r\n\"f\ng\",\n") == [["a", "b,c", "d\"e"], ["f\ng", ""]])
        #expect(throws: CSVReader.MalformedCSV(line: 1, reason: "a quote inside an unquoted field or after a closing quote")) {
            try CSVReader.records("ab\"c\n")
        }
    }
}
