import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an HTTP-date that is
/// turned into the wait from `now`. Both transports use it, so they agree on what a server asked.
enum RetryAfter {
    /// The wait the header asks for; nil when it is absent or malformed. A date in the past is a
    /// wait of zero.
    static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCIIDigit) {
            // Absurdly long digit strings saturate instead of failing to parse.
            return .seconds(Int(value) ?? Int(Int32.max))
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        let wait = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int((wait * 1000).rounded(.up)))
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
