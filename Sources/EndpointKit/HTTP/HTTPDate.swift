import Foundation

/// HTTP-dates (RFC 9110 §5.6.7) as `Date`s: `Date`, `Expires`, `Last-Modified` and `Retry-After` values.
enum HTTPDate {
    /// The date `value` names, or `nil` when it is not an HTTP-date (RFC 9110 §5.6.7).
    ///
    /// Each of the three forms a recipient must accept is read by hand, exactly: the preferred one
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850's (`Sunday, 06-Nov-94 08:49:37 GMT`, its two-digit year read as
    /// the RFC says) and asctime's (`Sun Nov  6 08:49:37 1994`). Anything else is no date: another zone (`UTC`), a
    /// one-digit hour, dashes in the preferred form, a missing comma, extra spaces, dots in the time. RFC 9111
    /// §5.3 reads an `Expires` that is no date as already past.
    static func parse(_ value: String) -> Date? {
        let bytes = Array(value.trimmingSpaces.utf8)
        return parseFixdate(bytes) ?? parseRFC850(bytes) ?? parseAsctime(bytes)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`: 29 bytes, fixed places; compared in place, with no copy (every stored
    /// response's `Date` is read on the call's path).
    private static func parseFixdate(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 29, dayNames.contains(where: { $0.elementsEqual(bytes[0..<3]) }),
            bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20, bytes[16] == 0x20,
            bytes[25...].elementsEqual(" GMT".utf8),
            let day = number(bytes, 5..<7), let year = number(bytes, 12..<16),
            let monthIndex = months.firstIndex(where: { $0.elementsEqual(bytes[8..<11]) })
        else { return nil }
        return date(year: year, month: monthIndex + 1, day: day, time: bytes, at: 17)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`: a whole day name, dashes, a two-digit year.
    private static func parseRFC850(_ bytes: [UInt8]) -> Date? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), longDayNames.contains(Array(bytes[..<comma])),
            bytes.count == comma + 24
        else { return nil }
        let rest = Array(bytes[(comma + 1)...])
        guard rest[0] == 0x20, rest[3] == UInt8(ascii: "-"), rest[7] == UInt8(ascii: "-"), rest[10] == 0x20,
            Array(rest[19...]) == Array(" GMT".utf8),
            let day = number(rest, 1..<3), let shortYear = number(rest, 8..<10),
            let monthIndex = months.firstIndex(of: Array(rest[4..<7]))
        else { return nil }
        // A two-digit year more than 50 years ahead is the latest past year that ends in those digits.
        let thisYear = Calendar(identifier: .gregorian).component(.year, from: Date())
        var year = thisYear - thisYear % 100 + shortYear
        if year > thisYear + 50 { year -= 100 }
        return date(year: year, month: monthIndex + 1, day: day, time: rest, at: 11)
    }

    /// `Sun Nov  6 08:49:37 1994`: the day of the month padded with a space, the year last.
    private static func parseAsctime(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 24, dayNames.contains(Array(bytes[0..<3])), bytes[3] == 0x20, bytes[7] == 0x20,
            bytes[10] == 0x20, bytes[19] == 0x20, let monthIndex = months.firstIndex(of: Array(bytes[4..<7])),
            let year = number(bytes, 20..<24)
        else { return nil }
        let day = bytes[8] == 0x20 ? number(bytes, 9..<10) : number(bytes, 8..<10)
        guard let day else { return nil }
        return date(year: year, month: monthIndex + 1, day: day, time: bytes, at: 11)
    }

    private static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        .map { Array($0.utf8) }

    /// The decimal number in `range` of `bytes`, every one a digit; `nil` otherwise.
    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var result = 0
        for byte in bytes[range] {
            guard (0x30...0x39).contains(byte) else { return nil }
            result = result * 10 + Int(byte - 0x30)
        }
        return result
    }

    /// The date of a day and the `HH:MM:SS` time at `start` of `bytes`, or `nil` when either is out of range.
    private static func date(year: Int, month: Int, day: Int, time bytes: [UInt8], at start: Int) -> Date? {
        guard bytes.count >= start + 8, bytes[start + 2] == UInt8(ascii: ":"), bytes[start + 5] == UInt8(ascii: ":"),
            let hour = number(bytes, start..<start + 2), let minute = number(bytes, start + 3..<start + 5),
            let second = number(bytes, start + 6..<start + 8),
            (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
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
}
