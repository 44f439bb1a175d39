import Foundation
@testable import Imago

/// Times and heads for the policy tables: everything on one injected timeline.
enum PolicyClock {
    /// 2023-11-14 22:13:20 GMT: the response arrives at this instant unless a row says otherwise.
    static let received = Date(timeIntervalSince1970: 1_700_000_000)

    /// `date` as an IMF-fixdate.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// `received` moved by `seconds`, as an HTTP-date.
    static func httpDate(offset seconds: Double) -> String { httpDate(received + seconds) }

    static func head(_ headers: [String: String], status: Int = 200) -> FetchResponseHead {
        FetchResponseHead(statusCode: status, headers: FetchResponseHead.fields(headers.map { ($0.key, $0.value) }))
    }
}
