/// The response directives of `Cache-Control` (RFC 9111 §5.2.2) that a private cache acts on.
///
/// Parsing is lenient where the RFC asks recipients to be: directive names are case-insensitive,
/// arguments may be tokens or quoted strings, unknown directives are ignored. Where it asks for
/// caution it is cautious: a `max-age` that is not a non-negative integer, or that appears twice
/// with different values, makes the response stale at once (§4.2.1), never fresh for longer.
struct CacheControl: Equatable, Sendable {
    /// `no-store`: never write the response to the disk (HTTP-1).
    var noStore = false
    /// `no-cache` (with or without field names: a private cache may treat the qualified form as
    /// the plain one, and does, being the safer reading): revalidate before every use.
    var noCache = false
    /// `max-age=N` in seconds; 0 when the value was unusable (see above).
    var maxAge: Int?
    /// `must-revalidate`: once stale, never used without a successful revalidation: it overrides
    /// `stale-while-revalidate` and `stale-if-error` (RFC 9111 §5.2.2.2).
    var mustRevalidate = false
    /// `immutable` (RFC 8246): the body will not change while fresh, so a fresh entry is used
    /// even when the policy asks to revalidate every use.
    var immutable = false
    /// `private`: storable here (a private cache), not by shared caches.
    var isPrivate = false
    /// `stale-while-revalidate=N` (RFC 5861 §3): for N seconds after it goes stale, the entry may
    /// serve at once while a revalidation runs in the background. Nil when absent or unusable.
    var staleWhileRevalidate: Int?
    /// `stale-if-error=N` (RFC 5861 §4): for N seconds after it goes stale, the entry may serve
    /// when the origin fails (5xx) or cannot be reached. Nil when absent or unusable.
    var staleIfError: Int?

    init() {}

    /// Parses every `Cache-Control` field line, joined with commas as `FetchResponseHead.headers`
    /// keeps them; nil or empty gives no directives.
    init(_ field: String?) {
        guard let field else { return }
        var maxAges: Set<Int?> = []
        for directive in Self.split(field) {
            let (name, argument) = Self.nameAndArgument(directive)
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            case "immutable": immutable = true
            case "private": isPrivate = true
            case "max-age": maxAges.insert(argument.flatMap(Self.deltaSeconds))
            // Unlike max-age, an unusable window grants nothing: stale content is only ever
            // served on a clear word from the server.
            case "stale-while-revalidate": staleWhileRevalidate = argument.flatMap(Self.deltaSeconds)
            case "stale-if-error": staleIfError = argument.flatMap(Self.deltaSeconds)
            default: continue   // s-maxage, proxy-revalidate, public...: for shared caches or no effect here
            }
        }
        if maxAges.count == 1, let only = maxAges.first { maxAge = only ?? 0 } else if maxAges.count > 1 { maxAge = 0 }
    }

    /// Delta-seconds (RFC 9111 §1.2.2): digits only; values past 2^31 saturate, as the RFC asks.
    static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text).map { min($0, Int(Int32.max)) } ?? Int(Int32.max)
    }

    /// Splits on commas outside quoted strings; trims; drops empty members.
    private static func split(_ field: String) -> [Substring] {
        var members: [Substring] = []
        var start = field.startIndex
        var quoted = false
        var index = field.startIndex
        while index < field.endIndex {
            let character = field[index]
            if character == "\"" { quoted.toggle() }
            if character == "," && !quoted {
                members.append(field[start..<index])
                start = field.index(after: index)
            }
            index = field.index(after: index)
        }
        members.append(field[start...])
        return members.map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }

    private static func nameAndArgument(_ directive: Substring) -> (String, String?) {
        guard let equals = directive.firstIndex(of: "=") else { return (directive.lowercased(), nil) }
        let name = directive[..<equals].trimmingSpaces.lowercased()
        var argument = directive[directive.index(after: equals)...].trimmingSpaces
        if argument.count >= 2, argument.first == "\"", argument.last == "\"" {
            argument = argument.dropFirst().dropLast()
        }
        return (name, String(argument))
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
