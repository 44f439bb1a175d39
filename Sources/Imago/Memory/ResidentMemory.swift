#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's resident memory, the usage figure when there is no memory cgroup to ask.
enum ResidentMemory {
    /// Resident pages from `root`/proc/self/statm ("size resident shared ..." in pages) × page
    /// size; nil where /proc is missing or the line is malformed.
    static func bytes(root: String) -> Int? {
        guard case .success(let text) = SmallFile.read(SmallFile.join(root, "/proc/self/statm")) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1].trimmingWhitespace) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// Resident pages not backed by a file (resident less shared, from the same line) × page
    /// size: the heap, stacks, what this process allocated. The code of the binary and its
    /// libraries is file-backed, usually already cached, and not charged to a cgroup again.
    static func anonymousBytes(root: String) -> Int? {
        guard case .success(let text) = SmallFile.read(SmallFile.join(root, "/proc/self/statm")) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 3, let resident = Int(fields[1].trimmingWhitespace), let shared = Int(fields[2].trimmingWhitespace)
        else { return nil }
        return max(0, resident - shared) * sysconf(Int32(_SC_PAGESIZE))
    }
}
