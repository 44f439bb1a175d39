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
}
