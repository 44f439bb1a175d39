import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `write(2)`, named apart from `RawDiskWrite.write`.
private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, bytes, count)
    #else
    Darwin.write(fd, bytes, count)
    #endif
}

/// The disk work a hand-written disk cache adds to the raw control (`RawControl`): each body
/// written to a new file in `directory` (a temporary, `fsync`, then renamed to a name made from
/// the URL), with the durability Imago's disk cache gives an entry by default
/// (`DiskCache.Configuration.synchronizesWrites`), on NIO's blocking threads as Imago's store
/// runs on threads of its own. Nothing else: no lookup, no sidecar, no index, no eviction, no
/// partial-download file. The pipeline with a disk cache over this control is what the loader
/// itself costs beside the disk; over the plain control, what the disk costs as well.
public struct RawDiskWrite: Sendable {
    /// Where the files go; each body replaces the file of an earlier body from the same URL.
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// Writes `body` as the file for `url`; throws when any step fails (a `BenchError` naming it).
    public func write(_ body: ByteBuffer, for url: URL) async throws {
        let name = url.absoluteString.map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" }
        let final = directory.appendingPathComponent(String(name)).path
        let temporary = final + ".tmp-" + UUID().uuidString
        try await NIOThreadPool.singleton.runIfActive {
            try Self.write(body, to: temporary, then: final)
        }
    }

    private static func write(_ body: ByteBuffer, to temporary: String, then final: String) throws {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open", temporary) }
        var closed = false
        defer { if !closed { close(fd) } }
        do {
            try body.withUnsafeReadableBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = posixWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { throw failure("write", temporary) }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else { throw failure("fsync", temporary) }
            closed = true
            guard close(fd) == 0 else { throw failure("close", temporary) }
            guard rename(temporary, final) == 0 else { throw failure("rename", temporary) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    private static func failure(_ call: String, _ path: String) -> BenchError {
        BenchError("raw control's disk write: \(call) \(path): \(String(cString: strerror(errno)))")
    }
}
