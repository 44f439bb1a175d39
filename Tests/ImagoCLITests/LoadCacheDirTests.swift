import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing

/// `imago load --cache-dir` with a directory that cannot be used: one line on stderr and exit
/// 73 (EX_CANTCREAT), or with `--ignore-unusable-cache-dir` the load goes on without a disk cache.
@Suite struct LoadCacheDirTests {
    /// Never fetched: the cache directory is judged before any load starts.
    static let unreachable = "http://127.0.0.1:9/never.jpg"
    static let photo = DecodeCommandTests.root.appendingPathComponent("Corpus/jpeg/baseline-420-q85-1600x1200.jpg").path

    @Test func aFileInTheWayIsOneLineAndExit73() async throws {
        let file = try Self.fileInTheWay()
        defer { try? FileManager.default.removeItem(atPath: file) }
        for directory in [file, file + "/below"] {
            let run = try await CommandRunner.run(["load", Self.unreachable, "--cache-dir", directory])
            #expect(run.status == 73)
            #expect(run.stderr == "imago: cannot use the cache directory \(directory): not a directory\n")
            #expect(run.stdout.isEmpty, "nothing loaded: \(run.stdout)")
        }
    }

    /// As root (who may write any directory), the command runs as `nobody` through setpriv.
    @Test(.enabled(if: geteuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "as root this needs setpriv (util-linux) to run the command as nobody"))
    func aReadOnlyDirectoryIsOneLineAndExit73() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-read-only-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(chmod(directory, 0o555) == 0)
        for cacheDir in [directory, directory + "/below"] {
            let run = try await Self.runUnprivileged(["load", Self.unreachable, "--cache-dir", cacheDir])
            #expect(run.status == 73)
            #expect(run.stderr == "imago: cannot use the cache directory \(cacheDir): permission denied\n")
            #expect(run.stdout.isEmpty, "nothing loaded: \(run.stdout)")
        }
    }

    @Test func askedToGoOnItLoadsWithoutADiskCache() async throws {
        let file = try Self.fileInTheWay()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try await CommandRunner.run(["load", Self.photo, "--cache-dir", file, "--ignore-unusable-cache-dir"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "imago: cannot use the cache directory \(file): not a directory; loading without a disk cache\n")
        let lines = run.stdout.split(separator: "\n")
        let success = try #require(lines.first { $0.contains(#""phase":"success""#) })
        #expect(!success.contains("diskCache"), "no disk cache, no outcome: \(success)")
        #expect(lines.last?.contains(#""succeeded":1"#) == true)
        #expect(lines.last?.contains("diskCache") == false, "the summary has no disk cache counts")
    }

    @Test func theFlagNeedsACacheDir() async throws {
        let run = try await CommandRunner.run(["load", Self.photo, "--ignore-unusable-cache-dir"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--ignore-unusable-cache-dir applies to the disk cache: give --cache-dir too"), "\(run.stderr)")
    }

    /// The issue's report, scaled down: two JPEGs that do not both fit a 512 KiB tmpfs cache.
    /// Both load (exit 0); what did not fit is `notStored`/`writeFailed`, and no partial stays.
    @Test(.enabled(if: Self.canMountTmpfs, "mounting a tmpfs needs root (CAP_SYS_ADMIN)"))
    func aFullDiskCostsNoImage() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-full-\(UUID())").path
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        #expect(mount("tmpfs", cache, "tmpfs", 0, "size=512k") == 0)
        defer { umount(cache); try? FileManager.default.removeItem(atPath: cache) }
        let server = try await TestServer.start()
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.photo)))
        for path in ["/a.jpg", "/b.jpg"] {
            server.setRoute(path, Route(body: jpeg, contentType: "image/jpeg", faults: Faults(headers: ["Cache-Control": "max-age=600"])))
        }
        let run = try await CommandRunner.run(["load", server.url(for: "/a.jpg").absoluteString, server.url(for: "/b.jpg").absoluteString,
                                               "--cache-dir", cache])
        try await server.shutdown()
        #expect(run.status == 0, "\(run.stderr)")
        let successes = run.stdout.split(separator: "\n").filter { $0.contains(#""phase":"success""#) }
        #expect(successes.count == 2, "\(run.stdout)")
        #expect(successes.allSatisfy { $0.contains(#""diskCache":"stored""#) || $0.contains(#""notStoredReason":"writeFailed""#) })
        #expect(successes.contains { $0.contains(#""notStoredReason":"writeFailed""#) }, "both cannot fit: \(successes)")
        let left = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasPrefix(".tmp-") }
        #expect(left.isEmpty, "nothing half written stays: \(left)")
    }

    /// Whether this process may mount a tmpfs (probed once).
    static let canMountTmpfs: Bool = {
        guard geteuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-mount-probe-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil,
              mount("tmpfs", probe, "tmpfs", 0, "size=64k") == 0 else { return false }
        return umount(probe) == 0
    }()

    /// A regular file where the cache directory should be.
    private static func fileInTheWay() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-in-the-way-\(UUID())").path
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs `imago arguments` as `nobody` when this process is root (root ignores a directory's
    /// mode), else as this user.
    private static func runUnprivileged(_ arguments: [String]) async throws -> FinishedProcess {
        guard geteuid() == 0 else { return try await CommandRunner.run(arguments) }
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        return try await ChildProcessRunner.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                          CommandRunner.executable.path] + arguments)
    }
}
