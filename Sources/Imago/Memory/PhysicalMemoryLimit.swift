import Foundation

/// Until the cgroup-aware reader lands: the effective limit is physical memory (what every
/// default used before).
public struct MemoryLimit: Sendable {
    public var bytes: Int
    public static var current: MemoryLimit { MemoryLimit(bytes: Int(clamping: ProcessInfo.processInfo.physicalMemory)) }
}
