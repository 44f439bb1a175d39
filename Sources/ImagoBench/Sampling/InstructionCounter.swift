import Foundation

/// Counts the instructions a decode executes, under valgrind's callgrind, in a child process
/// (`imago-bench-count`, built beside `imago`). Unlike a time, a count does not move with the machine: in A/A runs
/// on this 2-core VM a decode row's median time moved by 5–16% (one standard deviation) from
/// one run to the next, even against a partner sampled in the same rounds, so no threshold
/// could both pass an A/A comparison and find a 10% slowdown in one pair of runs; the counts of
/// one build repeat to the instruction. They see CPU work only: a change that waits (a lock, a
/// page fault, I/O) or moves memory traffic shows in the times and not here.
///
/// Each sample is one call of the C function ``functionName`` (the child wraps every counted
/// decode in it): callgrind collects only inside it (`--toggle-collect`) and writes one dump as
/// it leaves (`--dump-after`), so the dumps `out.1` … `out.N` are the N samples.
public struct InstructionCounter: Sendable {
    /// The valgrind executable.
    public let valgrind: String
    /// binutils' objcopy, which strips the child's debug information.
    public let objcopy: String

    /// The C function the child wraps each counted call in (`imago_bench_counted`).
    public static let functionName = "imago_bench_counted"

    /// The counting child's executable name: `imago-bench-count`, a product of this package
    /// that `make release` builds beside `imago`.
    public static let childName = "imago-bench-count"

    /// The counting child beside `executable` (the running `imago`).
    public static func child(besides executable: String) -> String {
        URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(childName).path
    }

    /// Longest one counting child may run (10 minutes), so a hung child cannot hang the bench.
    static let timeout: Duration = .seconds(600)

    public init(valgrind: String, objcopy: String) {
        self.valgrind = valgrind
        self.objcopy = objcopy
    }

    /// The first `valgrind` on `PATH` (with `objcopy`, binutils', to strip the child), or why
    /// there is none.
    public static func locate(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> Result<InstructionCounter, CounterUnavailable> {
        let directories = (path ?? "").split(separator: ":").map(String.init)
        func find(_ name: String) -> String? {
            directories.map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile(atPath:))
        }
        guard let found = find("valgrind") else {
            return .failure(CounterUnavailable(reason: "valgrind not installed (no valgrind on PATH; `make deps` installs Debian's)"))
        }
        guard let objcopy = find("objcopy") else {
            return .failure(CounterUnavailable(reason: "objcopy not installed (no objcopy on PATH; `make deps` installs binutils with gcc)"))
        }
        return .success(InstructionCounter(valgrind: found, objcopy: objcopy))
    }

    /// Runs `executable arguments` under callgrind and returns the instructions of each call of
    /// ``functionName``, in call order. Throws when the child fails or made no counted call.
    ///
    /// The child runs from a copy without debug information (`objcopy --strip-debug`, in a
    /// scratch directory): valgrind 3.19 (Debian 12) cannot read the DWARF 5 that Swift's clang
    /// writes for C targets and gives up on the whole program. Symbols stay, and
    /// ``functionName`` is all callgrind needs.
    public func count(executable: String, arguments: [String]) throws -> [Double] {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError("no \(executable) to count instructions with (`make release` builds \(Self.childName) beside imago)")
        }
        let scratch = try ScratchDirectory("callgrind")
        let output = scratch.url.appendingPathComponent("out").path
        let stripped = scratch.url.appendingPathComponent(URL(fileURLWithPath: executable).lastPathComponent).path
        let strip = try CapturedRun.run(objcopy, ["--strip-debug", executable, stripped], timeout: Self.timeout)
        guard strip.exitStatus == 0 else {
            let errors = String(decoding: strip.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw BenchError("objcopy --strip-debug \(executable) failed (\(strip.end.description)): \(errors)")
        }
        let ending = try CapturedRun.run(valgrind, [
            "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=\(Self.functionName)",
            "--dump-after=\(Self.functionName)", "--callgrind-out-file=\(output)", "--error-exitcode=3", "-q",
            stripped,
        ] + arguments, timeout: Self.timeout)
        guard ending.exitStatus == 0 else {
            let errors = String(decoding: ending.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw BenchError("counting \(arguments.first ?? executable) under callgrind failed (\(ending.end.description)): "
                             + errors.split(separator: "\n").suffix(3).joined(separator: " / "))
        }
        var counts: [Double] = []
        while let text = try? String(contentsOfFile: "\(output).\(counts.count + 1)", encoding: .utf8) {
            guard let total = Self.total(ofDump: text) else {
                throw BenchError("callgrind dump \(counts.count + 1) of \(arguments.first ?? executable) has no totals line")
            }
            counts.append(total)
        }
        guard !counts.isEmpty else {
            throw BenchError("callgrind saw no call of \(Self.functionName) in \(arguments.first ?? executable)")
        }
        return counts
    }

    /// The instructions a callgrind dump holds: its `totals:` line (the first event, `Ir`, is
    /// the only one collected by default), else its `summary:` line.
    static func total(ofDump text: String) -> Double? {
        var summary: Double?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("totals:") { return Self.firstNumber(after: "totals:", in: line) }
            if line.hasPrefix("summary:") { summary = Self.firstNumber(after: "summary:", in: line) }
        }
        return summary
    }

    private static func firstNumber(after prefix: String, in line: Substring) -> Double? {
        line.dropFirst(prefix.count).split(separator: " ").first.flatMap { Double($0) }
    }
}

/// Why instructions cannot be counted here (no valgrind).
public struct CounterUnavailable: Error, Sendable, CustomStringConvertible {
    /// What is missing, as the skipped rows print it.
    public let reason: String
    public var description: String { reason }

    public init(reason: String) {
        self.reason = reason
    }
}
