import CImagoCodecs
import CImagoTestCodecs
import Foundation

/// This process's memory as Linux reports it. Peak figures come from `VmHWM` in
/// /proc/self/status (the resident-set high-water mark), which `resetPeak()` lowers to the
/// current RSS through /proc/self/clear_refs, so one scenario's peak can be read apart from
/// the process's start-up.
public enum ProcessMemory {
    /// Current resident set size in bytes (`VmRSS`), or nil off Linux.
    public static func residentBytes() -> Int? { statusField("VmRSS") }

    /// Resident high-water mark in bytes (`VmHWM`), or nil off Linux.
    public static func peakResidentBytes() -> Int? { statusField("VmHWM") }

    /// Resets the high-water mark to the current RSS (writes "5" to /proc/self/clear_refs).
    /// Returns false when the kernel refused, in which case the peak includes everything
    /// since the process started.
    @discardableResult
    public static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    /// Bytes the malloc heap has handed out and not had back (glibc `mallinfo2().uordblks`);
    /// large pixel buffers are mapped directly and are not in it. 0 off glibc.
    public static func mallocInUseBytes() -> Int {
        Int(imago_reference_heap_in_use())
    }

    /// From now on, for the whole process, every malloc of at least `bytes` is mapped on its own
    /// and returned to the kernel when freed (glibc `mallopt(M_MMAP_THRESHOLD)`). Without it a
    /// freed buffer of a few MiB joins the top of its thread's arena, which `trimHeap()` does not
    /// give back, so "held after" would count memory nothing holds. For a process that only
    /// measures memory: mapping each buffer costs time. False off glibc.
    @discardableResult
    public static func mapLargeAllocations(from bytes: Int) -> Bool {
        imago_reference_heap_map_from(bytes) != 0
    }

    /// Returns freed malloc memory to the kernel (glibc `malloc_trim(0)`; nothing off glibc).
    public static func trimHeap() {
        _ = imago_heap_trim()
    }

    /// Parses one `Name:   1234 kB` line of /proc/self/status into bytes.
    static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return parseStatusField(name, in: text)
    }

    /// The value of `name` in a /proc status text, in bytes (the kernel reports kB).
    public static func parseStatusField(_ name: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let fields = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let value = fields.first.flatMap({ Int($0) }) else { return nil }
            let unit = fields.dropFirst().first ?? "kB"
            return unit == "kB" ? value * 1024 : value
        }
        return nil
    }
}
