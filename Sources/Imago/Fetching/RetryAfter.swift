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
        guard let date = httpDate(value) else { return nil }
        let wait = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int((wait * 1000).rounded(.up)))
    }

    /// IMF-fixdate, the obsolete RFC 850 form and asctime, as RFC 9110 §5.6.7 requires a
    /// recipient to accept.
    static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
