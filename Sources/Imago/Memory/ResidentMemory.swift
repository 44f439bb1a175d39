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
        guard let pages = statmPages(root: root, fields: 2) else { return nil }
        return pages[1] * sysconf(Int32(_SC_PAGESIZE))
    }

    /// Resident pages not backed by a file (resident less shared, from the same line) × page
    /// size: the heap, stacks, what this process allocated. The code of the binary and its
    /// libraries is file-backed, usually already cached, and not charged to a cgroup again.
    static func anonymousBytes(root: String) -> Int? {
        guard let pages = statmPages(root: root, fields: 3) else { return nil }
        return max(0, pages[1] - pages[2]) * sysconf(Int32(_SC_PAGESIZE))
    }

    /// The first `fields` numbers of `root`/proc/self/statm; nil when unreadable or malformed.
    private static func statmPages(root: String, fields count: Int) -> [Int]? {
        guard case .success(let text) = SmallFile.read(SmallFile.join(root, "/proc/self/statm")) else { return nil }
        let numbers = text.split(separator: " ").prefix(count).compactMap { Int($0.trimmingWhitespace) }
        return numbers.count == count ? numbers : nil
    }
}
