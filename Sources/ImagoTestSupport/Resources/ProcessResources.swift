import Foundation
import ImagoBench

/// What this process holds, read from /proc: leak checks compare these before and after.
public struct ProcessResources: Equatable, Sendable, CustomStringConvertible {
    /// Open file descriptors (entries of /proc/self/fd).
    public var fileDescriptors: Int
    /// Resident memory (`VmRSS`, through the bench's `ProcessMemory`).
    public var residentBytes: Int
    /// Threads (entries of /proc/self/task).
    public var threads: Int

    /// Resources as of now. Freed heap is handed back to the kernel first (`malloc_trim`), so
    /// resident memory counts what is still allocated, not what glibc keeps cached.
    public static func now() -> ProcessResources {
        ProcessMemory.trimHeap()
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
        return ProcessResources(fileDescriptors: fds, residentBytes: ProcessMemory.residentBytes() ?? -1, threads: threads)
    }

    /// Names of open descriptors' targets, for a failure message that says what leaked.
    public static func openDescriptorTargets() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }.sorted()
    }

    /// "N fds, M MiB resident, T threads".
    public var description: String {
        "\(fileDescriptors) fds, \(residentBytes >> 20) MiB resident, \(threads) threads"
    }
}
