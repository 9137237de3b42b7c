import Foundation

/// HTTP-dates (RFC 9110 §5.6.7) as `Date`s: `Date`, `Expires`, `Last-Modified` and `Retry-After` values.
enum HTTPDate {
    /// The date `value` names, or `nil` when it is not an HTTP-date.
    ///
    /// The preferred form (`Sun, 06 Nov 1994 08:49:37 GMT`) is read by hand, fast and without Foundation; the
    /// two obsolete forms go to a `DateFormatter`, and only printable ASCII of a date's length ever reaches it,
    /// since it stops the process on some non-ASCII input (found by fuzzing: "w\u{6E0}…mmm:2FF").
    static func parse(_ value: String) -> Date? {
        let value = value.trimmingSpaces
        if let date = parseFixdate(Array(value.utf8)) { return date }
        guard value.utf8.count <= 64, value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        for formatter in obsoleteFormatters {
            if let date = formatter.date(from: value) { return date }
        }
        return nil
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`: 29 bytes, fixed places.
    private static func parseFixdate(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20,
            bytes[11] == 0x20, bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"),
            bytes[25] == 0x20, Array(bytes[26...]) == Array("GMT".utf8)
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var result = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                result = result * 10 + Int(byte - 0x30)
            }
            return result
        }
        guard let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
            let minute = number(20..<22), let second = number(23..<25),
            let monthIndex = months.firstIndex(of: Array(bytes[8..<11])),
            (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    // DateFormatter is thread-safe for parsing once configured, and these are never changed.
    private static let obsoleteFormatters: [DateFormatter] = [
        "EEEE, dd-MMM-yy HH:mm:ss zzz",  // RFC 850
        "EEE MMM d HH:mm:ss yyyy",  // asctime
        "EEE, dd MMM yyyy HH:mm:ss zzz",  // the preferred form with a zone other than GMT spelled out
    ].map { format in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }
}
