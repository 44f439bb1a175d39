import Foundation
import ImagoTestSupport
import Testing

/// `imago bench --subject`: an unknown name is refused before anything runs.
@Suite struct BenchSubjectCommandTests {
    @Test func anUnknownSubjectExits64WithOneLineNamingTheValidOnes() async throws {
        let run = try await ChildProcessRunner.run(BuiltProducts.executable(named: "imago"), ["bench", "--subject", "nope"])
        #expect(run.status == 64)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("unknown subject nope; known: ") && run.stderr.contains("imago-data-memory"),
                "\(run.stderr)")
    }
}
