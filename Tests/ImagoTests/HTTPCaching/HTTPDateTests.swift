import Foundation
import Testing
@testable import Imago

/// HTTP dates in their three forms (RFC 9110 §5.6.7).
struct HTTPDateTests {
    @Test("The RFCs' example date in each form", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ])
    func exampleDate(_ text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    /// An RFC 850 two-digit year is read in the century that puts it at most 50 years ahead:
    /// a date 30 years ahead stays ahead (MODEL-HTTP found "Expires" 30 years on read as 1956).
    @Test("RFC 850 two-digit years up to 50 years ahead are this century's")
    func twoDigitYears() throws {
        let calendar = Calendar(identifier: .gregorian)
        let year = calendar.dateComponents(in: TimeZone(identifier: "GMT")!, from: Date()).year!
        for (ahead, expected) in [(30, year + 30), (49, year + 49), (51, year + 51 - 100), (-10, year - 10)] {
            let twoDigits = String(format: "%02d", (year + ahead) % 100)
            let parsed = try #require(HTTPDate.parse("Monday, 01-Jan-\(twoDigits) 00:00:00 GMT"))
            #expect(calendar.dateComponents(in: TimeZone(identifier: "GMT")!, from: parsed).year == expected, "\(twoDigits)")
        }
    }

    /// A day the month does not have is no date (it was read as the days after the month's end).
    @Test("IMF-fixdates name real days only", arguments: [
        ("Sat, 31 Feb 2026 00:00:00 GMT", false), ("Thu, 29 Feb 2024 00:00:00 GMT", true),
        ("Sun, 29 Feb 2026 00:00:00 GMT", false), ("Tue, 29 Feb 2000 00:00:00 GMT", true),
        ("Thu, 29 Feb 2100 00:00:00 GMT", false), ("Sat, 31 Apr 2026 00:00:00 GMT", false),
        ("Fri, 31 Jul 2026 00:00:00 GMT", true),
    ])
    func realDays(_ text: String, _ isDate: Bool) {
        #expect((HTTPDate.parse(text) != nil) == isDate, "\(text)")
    }
}

/// What is not exactly one of the three forms is no date (RFC 9111 §5.3 then makes an
/// `Expires` in the past), and the obsolete forms read their own ways of writing a day.
struct HTTPDateStrictnessTests {
    @Test("Near misses are no date", arguments: HTTPCachePolicyTableTests.invalidExpires)
    func nearMiss(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("asctime's day: a space and one digit, or two digits", arguments: [
        ("Thu Nov  2 08:49:37 2023", 2), ("Thu Nov 02 08:49:37 2023", 2), ("Thu Nov 23 08:49:37 2023", 23),
    ])
    func asctimeDays(_ text: String, _ day: Int) throws {
        let date = try #require(HTTPDate.parse(text))
        #expect(Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: date).day == day)
    }

    @Test("The three forms of one instant agree", arguments: [
        ["Wed, 15 Nov 2023 22:13:20 GMT", "Wednesday, 15-Nov-23 22:13:20 GMT", "Wed Nov 15 22:13:20 2023"],
    ])
    func formsAgree(_ forms: [String]) {
        #expect(forms.map(HTTPDate.parse) == Array(repeating: Date(timeIntervalSince1970: 1_700_086_400), count: 3))
    }
}
