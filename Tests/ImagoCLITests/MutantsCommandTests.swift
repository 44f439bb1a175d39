import XCTest

/// The planted bugs of `make mutants` live in the harness and are switched on only by
/// `imago mutant-run --mutant`, in a child of `imago mutants`: nothing else can turn one on.
final class MutantsCommandTests: XCTestCase {
    func testAnUnknownBugIsAUsageErrorNamingTheKnownOnes() async throws {
        for arguments in [["mutants", "--only", "no-such-bug"], ["mutant-run", "--mutant", "no-such-bug", "--subject", "imago-data-none"]] {
            let run = try await CommandRunner.run(arguments)
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains("unknown mutant no-such-bug"), run.stderr)
            XCTAssertTrue(run.stdout.isEmpty, run.stdout)
        }
    }

    func testTheEnvironmentCannotSwitchABugOn() async throws {
        // The old switch, IMAGO_MUTANT, is read by nothing: a conformance run is Imago as it ships.
        setenv("IMAGO_MUTANT", "share-no-coalescing", 1)
        defer { unsetenv("IMAGO_MUTANT") }
        let run = try await CommandRunner.run(["conform", "--subject", "imago-data-none", "--rule", "SHARE-2", "--format", "csv"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("SHARE-2,pass"), run.stdout)
    }
}
