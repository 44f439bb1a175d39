#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Bytes the process holds in live heap allocations, for FETCH-2's "the body is not kept in
/// memory" measurement.
///
/// Why live allocations rather than RSS: the allocator keeps freed memory (so RSS stays high
/// after a big temporary buffer is released, and may later be reused without growing), and
/// RSS also counts pages of the route's body the server already holds. glibc's own accounting
/// of what is allocated and not freed moves only with what is held right now. It is read
/// through `malloc_info` (found with `dlsym`: `malloc.h` is not part of Swift's Glibc module),
/// whose closing totals cover every arena: bytes obtained from the system minus the free bins,
/// plus chunks served by `mmap`. Without glibc it falls back to RSS from `/proc/self/statm`.
enum HeapUsage {
    private typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32

    /// Bytes in use now; nil when neither source is readable.
    static func bytesInUse() -> Int? { mallocInfoBytesInUse() ?? residentBytes() }

    /// Whether `bytesInUse()` falls when memory is freed: true for glibc's live allocations;
    /// false for RSS (under a sanitizer), which keeps freed pages resident, so it can show memory
    /// growing but never memory given back.
    static var seesFrees: Bool { mallocInfoBytesInUse() != nil }

    /// Which source `bytesInUse()` reads, for the evidence.
    static var source: String { mallocInfoBytesInUse() != nil ? "glibc malloc_info (live allocations)" : "RSS" }

    private static func mallocInfoBytesInUse() -> Int? {
        // Under a sanitizer malloc is the sanitizer's, and glibc's arenas see next to nothing.
        guard dlsym(nil, "__tsan_init") == nil, dlsym(nil, "__asan_init") == nil else { return nil }
        guard let symbol = dlsym(nil, "malloc_info") else { return nil }   // nil is RTLD_DEFAULT on glibc
        let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return nil }
        let status = mallocInfo(0, stream)
        fclose(stream)
        defer { free(buffer) }
        guard status == 0, let buffer else { return nil }
        return parse(String(cString: buffer))
    }

    /// In use = system "current" − free fast and rest bins + mmapped chunks, from the totals
    /// after the last `</heap>` (those sum over every arena).
    static func parse(_ xml: String) -> Int? {
        guard let totalsStart = xml.range(of: "</heap>", options: .backwards)?.upperBound else { return nil }
        let totals = xml[totalsStart...]
        func size(_ element: String, _ type: String) -> Int? {
            guard let start = totals.range(of: "<\(element) type=\"\(type)\"") else { return nil }
            let rest = totals[start.upperBound...]
            guard let open = rest.range(of: "size=\"") else { return nil }
            return Int(rest[open.upperBound...].prefix { $0.isNumber })
        }
        guard let current = size("system", "current"), let fast = size("total", "fast"),
              let free = size("total", "rest"), let mmapped = size("total", "mmap") else { return nil }
        return current - fast - free + mmapped
    }

    private static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
