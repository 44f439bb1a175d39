/// HTTP dates (RFC 9110 §5.6.7) in all three forms a recipient must accept, written for the
/// reference cache model: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850
/// form (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C's asctime (`Sun Nov  6 08:49:37 1994`).
/// Times are whole seconds since 1970 (UTC), so the model needs no calendar or locale.
public enum HTTPDateFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, the preferred form.
    case imfFixdate = "IMF-fixdate"
    /// `Sunday, 06-Nov-94 08:49:37 GMT`, with a two-digit year.
    case rfc850 = "RFC 850"
    /// `Sun Nov  6 08:49:37 1994`.
    case asctime

    /// The form's name, e.g. `RFC 850`.
    public var description: String { rawValue }

    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` (since 1970, UTC) in this form.
    public func format(_ seconds: Int64) -> String {
        let (days, secondOfDay) = (Self.floorDiv(seconds, 86_400), Self.floorMod(seconds, 86_400))
        let (year, month, day) = Self.civil(fromDays: days)
        let weekday = Int(Self.floorMod(days + 3, 7))  // 1970-01-01 was a Thursday (index 3 from Monday).
        let time = Self.two(secondOfDay / 3600) + ":" + Self.two(secondOfDay / 60 % 60) + ":" + Self.two(secondOfDay % 60)
        let monthName = Self.months[month - 1]
        switch self {
        case .imfFixdate:
            return "\(Self.shortDays[weekday]), \(Self.two(Int64(day))) \(monthName) \(year) \(time) GMT"
        case .rfc850:
            return "\(Self.longDays[weekday]), \(Self.two(Int64(day)))-\(monthName)-\(Self.two(Int64(year % 100))) \(time) GMT"
        case .asctime:
            let paddedDay = day < 10 ? " \(day)" : "\(day)"
            return "\(Self.shortDays[weekday]) \(monthName) \(paddedDay) \(time) \(year)"
        }
    }

    /// The seconds since 1970 that `text` names in any of the three forms, or nil when it is not
    /// a valid HTTP date (what an `Expires` recipient must then take as "already expired").
    /// An RFC 850 two-digit year that would lie more than 50 years after `now` is read as the
    /// most recent past year with those digits (RFC 9110 §5.6.7).
    public static func parse(_ text: String, now: Int64) -> Int64? {
        let trimmed = text.trimmingHTTPWhitespace()
        let words = trimmed.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if words.count == 6, words[0].hasSuffix(","), shortDays.contains(String(words[0].dropLast())), words[5] == "GMT",
           words[1].count == 2, let day = Int(words[1]), let month = monthNumber(words[2]),
           words[3].count == 4, let year = Int(words[3]) {
            return seconds(year: year, month: month, day: day, time: words[4])
        }
        if words.count == 4, words[0].hasSuffix(","), longDays.contains(String(words[0].dropLast())), words[3] == "GMT" {
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0].count == 2, let day = Int(parts[0]), let month = monthNumber(parts[1]),
                  parts[2].count == 2, let twoDigits = Int(parts[2]) else { return nil }
            let (currentYear, _, _) = civil(fromDays: floorDiv(now, 86_400))
            let year = currentYear - currentYear % 100 + twoDigits
            guard let candidate = seconds(year: year, month: month, day: day, time: words[2]) else { return nil }
            // "More than 50 years in the future": 50 Gregorian years of 365.2425 days.
            if candidate > now + 1_577_847_600 { return seconds(year: year - 100, month: month, day: day, time: words[2]) }
            return candidate
        }
        if words.count == 5, shortDays.contains(words[0]), let month = monthNumber(words[1]),
           (1...2).contains(words[2].count), let day = Int(words[2]), words[4].count == 4, let year = Int(words[4]) {
            return seconds(year: year, month: month, day: day, time: words[3])
        }
        return nil
    }

    private static func monthNumber(_ name: String) -> Int? { months.firstIndex(of: name).map { $0 + 1 } }

    private static func seconds(year: Int, month: Int, day: Int, time: String) -> Int64? {
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ $0.count == 2 }),
              let hour = Int(fields[0]), let minute = Int(fields[1]), let second = Int(fields[2]),
              hour < 24, minute < 60, second < 61 else { return nil }
        let days = Self.days(year: year, month: month, day: day)
        // A day past the month's end (`31 Feb`) is no date.
        guard day >= 1, civil(fromDays: days) == (year, month, day) else { return nil }
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDiv(y, 400)
        let yearOfEra = y - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01 (`civil_from_days`).
    private static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { (a - floorMod(a, b)) / b }
    private static func floorMod(_ a: Int64, _ b: Int64) -> Int64 { ((a % b) + b) % b }
    private static func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingHTTPWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
