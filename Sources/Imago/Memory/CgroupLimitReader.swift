/// What a cgroup limit file holds.
enum CgroupLimitValue: Equatable {
    case bytes(Int)
    /// "max" (v2), or v1's "no limit" sentinel (9223372036854771712, LONG_MAX rounded down to
    /// pages; the page size varies, so anything >= 2^62 counts as no limit).
    case unlimited
    case malformed(String)

    /// Values at or above this mean no limit (2^62 bytes = 4 EiB: no machine has that much).
    static let unlimitedThreshold = 1 << 62

    static func parse(_ text: String) -> CgroupLimitValue {
        let trimmed = text.trimmingWhitespace
        if trimmed == "max" { return .unlimited }
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return .malformed(String(trimmed.prefix(40)))
        }
        // Too many digits for UInt64 is still "more than any machine has".
        guard let value = UInt64(trimmed) else { return .unlimited }
        return value >= UInt64(unlimitedThreshold) ? .unlimited : .bytes(Int(value))
    }
}

/// One limit found in one file.
struct CgroupLimitFinding: Sendable, Equatable {
    var bytes: Int
    /// The file that holds it, without the root prefix.
    var file: String
    var directory: String
    var version: Int
}

/// The limits of one hierarchy: the smallest hard limit and (v2) the smallest `memory.high`
/// over the process's cgroup and all its ancestors up to the mount point.
struct CgroupLimits: Sendable, Equatable {
    var hard: CgroupLimitFinding?
    var high: CgroupLimitFinding?
    /// Whether the hierarchy carries the memory controller for the process's cgroup (for v2
    /// it may not: a hybrid host leaves memory on v1).
    var hasMemoryController: Bool
    /// What was ignored: unreadable files and malformed values.
    var notes: [String]
}

/// Reads the limit files of a hierarchy found by `CgroupLocator`.
enum CgroupLimitReader {
    /// v2: `memory.max` is the hard limit (the OOM killer acts there), `memory.high` the point
    /// where the kernel throttles and reclaims hard. v1: `memory.limit_in_bytes` for memory,
    /// `memory.memsw.limit_in_bytes` for memory plus swap (present with swap accounting);
    /// whichever is smaller binds.
    static func read(root: String, hierarchy: CgroupHierarchy) -> CgroupLimits {
        var limits = CgroupLimits(hard: nil, high: nil, hasMemoryController: false, notes: [])
        let hardFiles = hierarchy.version == 2 ? ["memory.max"] : ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
        for directory in hierarchy.ancestry {
            for name in hardFiles {
                if let finding = finding(root: root, directory: directory, name: name, version: hierarchy.version,
                                         notes: &limits.notes),
                   finding.bytes < (limits.hard?.bytes ?? .max) {
                    limits.hard = finding
                }
            }
            if hierarchy.version == 2,
               let finding = finding(root: root, directory: directory, name: "memory.high", version: 2, notes: &limits.notes),
               finding.bytes < (limits.high?.bytes ?? .max) {
                limits.high = finding
            }
        }
        limits.hasMemoryController = hasMemoryController(root: root, hierarchy: hierarchy)
        return limits
    }

    /// The usage file of a cgroup directory: `memory.current` (v2) or `memory.usage_in_bytes` (v1).
    static func usageFile(directory: String, version: Int) -> String {
        SmallFile.join(directory, version == 2 ? "memory.current" : "memory.usage_in_bytes")
    }

    /// The usage in bytes of a cgroup directory, nil when the file is missing or not a number.
    /// Raw usage, page cache included: the figure the kernel's v1 usage thresholds cross. Their
    /// events are classified by the usage besides page cache, and because a crossing does not
    /// repeat while usage stays above it, the watcher reads that figure again every polling
    /// interval for as long as the two give different levels (`MemoryPressureWatcher`).
    static func usage(root: String, directory: String, version: Int) -> Int? {
        guard case .success(let text) = SmallFile.read(SmallFile.join(root, usageFile(directory: directory, version: version))),
              case .bytes(let bytes) = CgroupLimitValue.parse(text) else { return nil }
        return bytes
    }

    /// The page cache charged to a cgroup directory (the file pages on its active and inactive
    /// lists, which the kernel reclaims before it kills), from `memory.stat`: `total_active_file`
    /// and `total_inactive_file` on v1 (with its descendants, as its usage is), `active_file` and
    /// `inactive_file` on v2. Nil when the file is missing or holds neither.
    static func fileCache(root: String, directory: String, version: Int) -> Int? {
        guard case .success(let text) = SmallFile.read(SmallFile.join(root, SmallFile.join(directory, "memory.stat"))) else {
            return nil
        }
        let keys: Set<Substring> = version == 2 ? ["active_file", "inactive_file"] : ["total_active_file", "total_inactive_file"]
        var total: Int?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, keys.contains(fields[0]), let bytes = Int(fields[1]) else { continue }
            total = (total ?? 0) + bytes
        }
        return total
    }

    private static func finding(root: String, directory: String, name: String, version: Int,
                                notes: inout [String]) -> CgroupLimitFinding? {
        let file = SmallFile.join(directory, name)
        switch SmallFile.read(SmallFile.join(root, file)) {
        case .failure(.missing):
            return nil   // normal: the root cgroup has no memory.max, memsw needs swap accounting
        case .failure(let failure):
            notes.append("\(file) is \(failure)")
            return nil
        case .success(let text):
            switch CgroupLimitValue.parse(text) {
            case .bytes(let bytes): return CgroupLimitFinding(bytes: bytes, file: file, directory: directory, version: version)
            case .unlimited: return nil
            case .malformed(let value):
                notes.append("\(file) holds \"\(value)\", not a number of bytes")
                return nil
            }
        }
    }

    private static func hasMemoryController(root: String, hierarchy: CgroupHierarchy) -> Bool {
        if hierarchy.version == 1 { return true }   // located by its memory controller
        let directory = hierarchy.directory
        if SmallFile.exists(SmallFile.join(root, SmallFile.join(directory, "memory.current"))) { return true }
        if case .success(let text) = SmallFile.read(SmallFile.join(root, SmallFile.join(directory, "cgroup.controllers"))) {
            return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("memory")
        }
        return false
    }
}

extension StringProtocol where SubSequence == Substring {
    /// Without leading and trailing spaces, tabs and newlines (no Foundation needed).
    var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
