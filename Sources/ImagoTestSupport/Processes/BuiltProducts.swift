import Foundation

/// Executables SwiftPM built beside the test bundle, found at run time.
public enum BuiltProducts {
    /// The executable product `name` (e.g. `imago`): the first directory above the test bundle
    /// that holds it (a test target depending on the product makes SwiftPM build it there).
    public static func executable(named name: String) -> URL {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path),
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent(name)
    }

    /// This very test binary (`…PackageTests.xctest`), which can be run again in a child process
    /// to run one XCTest method there; nil under an unusual runner.
    public static var testBinary: URL? {
        let candidates = [CommandLine.arguments.first, try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")]
        return candidates.compactMap { $0 }.map { URL(fileURLWithPath: $0) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) && $0.path.hasSuffix(".xctest") }
    }
}
