import Foundation

/// HTTP-dates (RFC 9110 §5.6.7): IMF-fixdate, the obsolete RFC 850 form and asctime, all of
/// which a recipient must accept. Used for `Date`, `Expires`, `Last-Modified` and `Retry-After`.
enum HTTPDate {
    /// The date `text` names, or nil when it is none of the three forms. Each form is read
    /// exactly as RFC 9110 spells it (a four-digit year in the RFC 850 form, a zone other than
    /// GMT, a missing field are none of them): a cache treats an `Expires` that is not a date as
    /// in the past (RFC 9111 §5.3), so a near miss must not pass for a date.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        return imfFixdate(bytes) ?? rfc850(bytes) ?? asctime(bytes)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, parsed by hand: every response has one or more, and a
    /// DateFormatter per call would cost more than the rest of a cache decision.
    private static func imfFixdate(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 32, bytes[7] == 32, bytes[11] == 32,
              text(bytes[26...]) == "GMT", days.contains(text(bytes[0..<3])),
              let month = months.firstIndex(of: text(bytes[8..<11])),
              let day = number(bytes[5..<7]), let year = number(bytes[12..<16])
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: bytes[16..<26])
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete, still to be accepted): a two-digit year.
    private static func rfc850(_ bytes: [UInt8]) -> Date? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), longDays.contains(text(bytes[..<comma])),
              bytes.count == comma + 24
        else { return nil }
        let rest = Array(bytes[(comma + 1)...])   // " 06-Nov-94 08:49:37 GMT"
        guard rest[0] == 32, rest[3] == UInt8(ascii: "-"), rest[7] == UInt8(ascii: "-"), text(rest[20...]) == "GMT",
              let month = months.firstIndex(of: text(rest[4..<7])),
              let day = number(rest[1..<3]), let twoDigitYear = number(rest[8..<10])
        else { return nil }
        return date(year: fullYear(twoDigitYear), month: month + 1, day: day, time: rest[10..<20])
    }

    /// `Sun Nov  6 08:49:37 1994` (C's asctime, obsolete, still to be accepted): no zone, GMT.
    private static func asctime(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 24, bytes[3] == 32, bytes[7] == 32, bytes[19] == 32, days.contains(text(bytes[0..<3])),
              let month = months.firstIndex(of: text(bytes[4..<7])),
              let day = bytes[8] == 32 ? number(bytes[9..<10]) : number(bytes[8..<10]),
              let year = number(bytes[20..<24])
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: bytes[10..<20])
    }

    /// RFC 9110 §5.6.7: an RFC 850 year is this century's unless that is more than 50 years
    /// ahead, when it is the last century's (and the next century's when this century's would
    /// be more than 50 years past).
    private static func fullYear(_ twoDigits: Int) -> Int {
        let thisYear = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: Date()).year!
        let candidate = thisYear - thisYear % 100 + twoDigits
        if candidate > thisYear + 50 { return candidate - 100 }
        if candidate <= thisYear - 50 { return candidate + 100 }
        return candidate
    }

    /// The instant of a day and ` HH:mm:ss ` (ten bytes, a space each side), or nil when it
    /// names none ("31 Feb", hour 24). A leap second reads as second 59.
    private static func date<Time: Collection<UInt8>>(year: Int, month: Int, day: Int, time: Time) -> Date? {
        let time = Array(time)
        guard time.count == 10, time[0] == 32, time[3] == UInt8(ascii: ":"), time[6] == UInt8(ascii: ":"), time[9] == 32,
              let hour = number(time[1..<3]), let minute = number(time[4..<6]), let second = number(time[7..<9]),
              (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)))
    }

    private static func text<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// 28 to 31: "31 Feb" names no day, and is no date (it is not 3 March).
    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for digit in digits {
            guard (48...57).contains(digit) else { return nil }
            value = value * 10 + Int(digit - 48)
        }
        return value
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
