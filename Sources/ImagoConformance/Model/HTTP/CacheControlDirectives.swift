/// The directives of a response's `Cache-Control` field lines (RFC 9111 §5.2), in order, for the
/// reference cache model: `token [ "=" ( token / quoted-string ) ]`, separated by commas outside
/// quoted strings, names compared case-insensitively.
public struct CacheControlDirectives: Sendable, Hashable {
    /// One directive as sent.
    public struct Directive: Sendable, Hashable {
        /// The name, lowercased (`max-age`).
        public let name: String
        /// The argument with any quotes and escapes removed, or nil without `=`.
        public let argument: String?
    }

    /// Every directive of every field line, in the order received.
    public let directives: [Directive]

    /// The directives of `fieldValues` (one string per field line).
    public init(_ fieldValues: [String]) {
        directives = fieldValues.flatMap(Self.split).compactMap(Self.directive)
    }

    /// Whether a directive named `name` (lowercase) is present, with or without an argument.
    public func has(_ name: String) -> Bool { directives.contains { $0.name == name } }

    /// The arguments of every `name` directive, in order (nil for one without an argument).
    public func arguments(_ name: String) -> [String?] { directives.filter { $0.name == name }.map(\.argument) }

    /// A delta-seconds argument (RFC 9111 §1.2.2: `1*DIGIT`), or nil when it is not one. Values too
    /// large for the cache become 2^31, as the RFC requires.
    public static func deltaSeconds(_ argument: String?) -> Int64? {
        guard let argument, !argument.isEmpty, argument.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let digits = argument.drop { $0 == "0" }
        if digits.count > 10 { return 2_147_483_648 }
        return min(Int64(digits.isEmpty ? "0" : String(digits)) ?? 2_147_483_648, 2_147_483_648)
    }

    /// The comma-separated members of one field line; commas inside a quoted string do not split.
    private static func split(_ value: String) -> [String] {
        var members: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        for character in value {
            if escaped { escaped = false; current.append(character); continue }
            if inQuotes && character == "\\" { escaped = true; current.append(character); continue }
            if character == "\"" { inQuotes.toggle() }
            if character == "," && !inQuotes { members.append(current); current = "" } else { current.append(character) }
        }
        members.append(current)
        return members
    }

    private static func directive(_ member: String) -> Directive? {
        let trimmed = member.trimmingHTTPWhitespace()
        guard !trimmed.isEmpty else { return nil }
        guard let equals = trimmed.firstIndex(of: "=") else { return Directive(name: trimmed.lowercased(), argument: nil) }
        let name = String(trimmed[..<equals]).trimmingHTTPWhitespace().lowercased()
        var argument = String(trimmed[trimmed.index(after: equals)...]).trimmingHTTPWhitespace()
        if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") {
            // A quoted-string: recipients ought to accept it wherever a token is expected (§5.2).
            var unquoted = ""
            var escaped = false
            for character in argument.dropFirst().dropLast() {
                if !escaped && character == "\\" { escaped = true; continue }
                escaped = false
                unquoted.append(character)
            }
            argument = unquoted
        }
        return Directive(name: name, argument: argument)
    }
}
