/// What a `Range` header asks of a representation of known size (RFC 9110 §14).
///
/// Why only single ranges: image loaders resume or probe with one range; a multi-range
/// request may lawfully be answered with the whole body (200), which is what happens here.
enum RangeRequest: Equatable {
    /// No usable Range header: send the whole body with 200.
    case whole
    /// Send these bytes with 206 and Content-Range.
    case partial(Range<Int>)
    /// The range starts past the end: 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// Evaluates `header` (the Range value, if any) for a body of `size` bytes. Syntax this
    /// server does not understand is ignored, as RFC 9110 allows.
    init(header: String?, size: Int) {
        guard let header else { self = .whole; return }
        let value = header.trimmingSpaces()
        guard value.count > 6, value.prefix(6).lowercased() == "bytes=" else { self = .whole; return }
        let spec = value.dropFirst(6).trimmingCharacters(in: " \t")
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { self = .whole; return }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty) else {
            self = .whole
            return
        }
        if first.isEmpty {
            // bytes=-n: the last n bytes.
            guard let count = Int(last) else { self = .whole; return }
            guard count > 0, size > 0 else { self = .unsatisfiable; return }
            self = .partial(max(0, size - count)..<size)
            return
        }
        guard let start = Int(first) else { self = .unsatisfiable; return }  // too big to be satisfiable
        var end = size - 1
        if !last.isEmpty {
            if let given = Int(last) {
                guard given >= start else { self = .whole; return }  // invalid: ignored
                end = min(given, size - 1)
            }
        }
        guard start < size else { self = .unsatisfiable; return }
        self = .partial(start..<(end + 1))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var slice = self
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return slice
    }
}
