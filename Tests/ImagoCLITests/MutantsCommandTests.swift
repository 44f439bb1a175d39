import XCTest

/// The planted bugs of `make mutants` exist only in a build with the `Mutants` trait: the binary
/// the tests (and users) build must have none to switch on.
final class MutantsCommandTests: XCTestCase {
    func testANormalBuildHasNoPlantedBugs() throws {
        for arguments in [["mutants"], ["mutant-run", "--mutant", "share-no-coalescing", "--subject", "imago-data-none"]] {
            let run = try CommandRunner.run(arguments)
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains("this build has no planted bugs"), run.stderr)
            XCTAssertTrue(run.stdout.isEmpty, run.stdout)
        }
    }

    func testTheEnvironmentCannotSwitchABugOnInANormalBuild() throws {
        // IMAGO_MUTANT is read only where Mutation exists; here a conformance run must pass.
        setenv("IMAGO_MUTANT", "share-no-coalescing", 1)
        defer { unsetenv("IMAGO_MUTANT") }
        let run = try CommandRunner.run(["conform", "--subject", "imago-data-none", "--rule", "SHARE-2", "--format", "csv"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("SHARE-2,pass"), run.stdout)
    }
}
