import Foundation

/// HTTP-dates (RFC 9110 §5.6.7): IMF-fixdate, the obsolete RFC 850 form and asctime, all of
/// which a recipient must accept. Used for `Date`, `Expires`, `Last-Modified` and `Retry-After`.
enum HTTPDate {
    /// The date `text` names, or nil when it is none of the three forms.
    static func parse(_ text: String) -> Date? {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if let date = imfFixdate(text) { return date }
        // The obsolete forms are rare: a formatter per call is fine for them. Both are GMT by
        // definition (asctime has no zone at all), and DateFormatter would read other zones.
        let rfc850 = text.hasSuffix(" GMT") && text.contains("-")
        let asctime = !text.contains(",") && !text.contains("-")
        guard rfc850 || asctime else { return nil }
        for format in [rfc850 ? "EEEE, dd-MMM-yy HH:mm:ss 'GMT'" : "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.isLenient = false
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            // RFC 9110 §5.6.7: an RFC 850 year is this century's unless that is more than 50
            // years ahead (DateFormatter's default window ends only 20 years ahead).
            formatter.twoDigitStartDate = Date(timeIntervalSinceNow: -50 * 365.2425 * 86_400)
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, parsed by hand: every response has one or more, and a
    /// DateFormatter per call would cost more than the rest of a cache decision.
    private static func imfFixdate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 32, bytes[7] == 32, bytes[11] == 32,
              bytes[16] == 32, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 32,
              String(decoding: bytes[26...], as: UTF8.self) == "GMT",
              days.contains(String(decoding: bytes[0..<3], as: UTF8.self)),
              let month = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
              let day = number(bytes[5..<7]), let year = number(bytes[12..<16]),
              let hour = number(bytes[17..<19]), let minute = number(bytes[20..<22]), let second = number(bytes[23..<25]),
              (1...daysIn(month: month + 1, year: year)).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysFromCivil(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)))
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
