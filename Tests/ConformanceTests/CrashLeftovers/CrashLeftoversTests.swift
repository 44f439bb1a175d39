import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import ImagoConformance
import ImagoTestSupport
import Testing

/// The writers `CrashLeftovers` simulates, as a real cache would run them.
enum CrashingWriter: String, CaseIterable, Sendable {
    case foundationAtomic = "foundation-atomic"
    case temporaryThenRename = "temporary-then-rename"

    /// The entry both sides write: 200 000 bytes of a pattern, so a prefix is told from a shift.
    static let entry = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
    static let entryName = "entry.bin"
    static let temporaryName = "entry.bin.tmp"

    /// Writes `bytes` as the writer does: Foundation's atomic write, or `Data.write` to a
    /// temporary file of the caller's naming and a rename (Examples/BlogLoader's `store`).
    func write(_ bytes: Data, in directory: URL) throws {
        let destination = directory.appendingPathComponent(Self.entryName)
        switch self {
        case .foundationAtomic:
            try bytes.write(to: destination, options: .atomic)
        case .temporaryThenRename:
            let temporary = directory.appendingPathComponent(Self.temporaryName)
            try bytes.write(to: temporary)
            try FileManager.default.moveItem(at: temporary, to: destination)
        }
    }

    /// The helper's simulation of this writer's crash after `writtenBytes`.
    func simulateCrash(_ bytes: Data, writtenBytes: Int, in directory: URL) throws -> URL {
        switch self {
        case .foundationAtomic:
            try CrashLeftovers.foundationAtomicWrite(of: bytes, writtenBytes: writtenBytes,
                                                     to: directory.appendingPathComponent(Self.entryName))
        case .temporaryThenRename:
            try CrashLeftovers.temporaryFileThenRename(of: bytes, writtenBytes: writtenBytes,
                                                       temporary: directory.appendingPathComponent(Self.temporaryName))
        }
    }

    /// Whether `name` is the leftover's name for a writer in process `pid`.
    func isLeftoverName(_ name: String, pid: Int32) -> Bool {
        switch self {
        case .foundationAtomic:
            let prefix = ".dat.nosync" + String(pid, radix: 16, uppercase: true) + "."
            guard name.hasPrefix(prefix) else { return false }
            let suffix = name.dropFirst(prefix.count)
            return suffix.count == 6 && suffix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        case .temporaryThenRename:
            return name == Self.temporaryName
        }
    }
}

/// `CrashLeftovers` against the real writers: a child process writing an entry is killed
/// mid-write by the kernel (SIGXFSZ at a file-size limit), and what it left must be what the
/// helper leaves: one file, of the writer's naming, holding exactly the bytes written, and no
/// entry.
@Suite struct CrashLeftoversTests {
    static let limit = 65_536

    @Test(arguments: CrashingWriter.allCases)
    func helperLeavesWhatTheWriterKilledMidWriteLeaves(_ writer: CrashingWriter) async throws {
        let real = try TemporaryDirectory("crashing-writer-real")
        let simulated = try TemporaryDirectory("crashing-writer-simulated")
        let child = try ChildTestProcess(test: "ConformanceTests.CrashingWriterChild/testWriterChild",
                                         environment: ["IMAGO_CRASHING_WRITER_DIR": real.url.path,
                                                       "IMAGO_CRASHING_WRITER": writer.rawValue,
                                                       "IMAGO_CRASHING_WRITER_LIMIT": "\(Self.limit)"])
        try child.run()
        let childPID = child.process.processIdentifier
        let (status, reason, report) = await child.finished()
        try #require(reason == .uncaughtSignal && status == SIGXFSZ, "the writer was not killed mid-write: \(report)")

        let left = try real.files()
        let expected = CrashingWriter.entry.prefix(Self.limit)
        try #require(left.count == 1, "the killed writer left \(left.map(\.name))")
        #expect(writer.isLeftoverName(left[0].name, pid: childPID), "the real writer's leftover is \(left[0].name)")
        #expect(left[0].data == expected)

        let leftover = try writer.simulateCrash(CrashingWriter.entry, writtenBytes: Self.limit, in: simulated.url)
        let simulatedFiles = try simulated.files()
        #expect(simulatedFiles.map(\.name) == [leftover.lastPathComponent])
        #expect(writer.isLeftoverName(leftover.lastPathComponent, pid: ProcessInfo.processInfo.processIdentifier),
                "the helper left \(leftover.lastPathComponent); the real writer left \(left[0].name)")
        #expect(simulatedFiles.first?.data == expected)
        let modified = try FileManager.default.attributesOfItem(atPath: leftover.path)[.modificationDate] as? Date
        #expect(modified.map { Date().timeIntervalSince($0) >= CrashLeftovers.defaultAge - 60 } == true,
                "the leftover is dated \(modified.map(String.init(describing:)) ?? "?"), not an hour back")
    }

    /// Foundation spells the id unpadded (`String(pid, radix: 16, uppercase: true)`): a CI
    /// container's small ids showed that a padded spelling ("%04X") names no real leftover.
    @Test("Foundation's temporary name carries the process id in unpadded upper-case hex", arguments: [
        (Int32(841), ".dat.nosync349."), (Int32(7), ".dat.nosync7."), (Int32(1_234_567), ".dat.nosync12D687."),
    ])
    func foundationTemporaryName(_ pid: Int32, _ prefix: String) {
        let name = CrashLeftovers.foundationTemporaryName(processIdentifier: pid)
        #expect(name.hasPrefix(prefix) && name.count == prefix.count + 6, "\(name)")
        #expect(CrashingWriter.foundationAtomic.isLeftoverName(name, pid: pid))
    }

    @Test(arguments: CrashingWriter.allCases)
    func anEarlierEntryStaysAsItWas(_ writer: CrashingWriter) throws {
        let directory = try TemporaryDirectory("crashing-writer-earlier-entry")
        let earlier = Data("the previous complete entry".utf8)
        try earlier.write(to: directory.url.appendingPathComponent(CrashingWriter.entryName))
        _ = try writer.simulateCrash(CrashingWriter.entry, writtenBytes: 0, in: directory.url)
        let files = try directory.files()
        #expect(files.count == 2)
        #expect(files.first { $0.name == CrashingWriter.entryName }?.data == earlier)
        #expect(files.contains { $0.name != CrashingWriter.entryName && $0.data.isEmpty })
    }
}

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory {
    let url: URL

    init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Every file in it (hidden ones included), by name, with its bytes.
    func files() throws -> [(name: String, data: Data)] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted().map { name in
            (name, try Data(contentsOf: url.appendingPathComponent(name)))
        }
    }
}
