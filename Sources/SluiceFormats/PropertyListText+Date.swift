import FoundationEssentials
import Sluice

extension PropertyListText {
    /// A `<date>`: ISO 8601's `yyyy-MM-ddTHH:mm:ssZ`, in UTC, the one form property lists write.
    ///
    /// Stricter than `PropertyListDecoder`, which rolled a month 13 or a February 30 over into
    /// the next year or month: each field must be in its range (a second may be 60, a leap second,
    /// which reads as the next minute's first). The year has four to nine digits and may be
    /// negative. Days are counted in the proleptic Gregorian calendar, as ISO 8601 (and Core
    /// Foundation and Python's plistlib, which write such dates) count them;
    /// `PropertyListDecoder` counted days before 15 October 1582 in the Julian calendar.
    static func date(_ text: String) throws(PropertyListSyntaxError) -> Date {
        let bytes = trimmed(text)
        var index = bytes.startIndex
        /// The number in the next `count` digits, or nil.
        func number(digits count: Int) -> Int? {
            guard bytes.endIndex - index >= count else { return nil }
            var value = 0
            for offset in 0..<count {
                let byte = bytes[index + offset]
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        /// Whether `separator` comes next, read if so.
        func skip(_ separator: Character) -> Bool {
            guard index < bytes.endIndex, bytes[index] == separator.asciiValue else { return false }
            index += 1
            return true
        }
        let isNegative = skip("-")
        var yearDigits = 0
        while index + yearDigits < bytes.endIndex,
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index + yearDigits])
        {
            yearDigits += 1
        }
        guard (4...9).contains(yearDigits), let year = number(digits: yearDigits), skip("-"),
            let month = number(digits: 2), skip("-"), let day = number(digits: 2), skip("T"),
            let hour = number(digits: 2), skip(":"), let minute = number(digits: 2), skip(":"),
            let second = number(digits: 2), skip("Z"), index == bytes.endIndex
        else {
            throw PropertyListSyntaxError("<date> \(quoted(text)) is not a date of the form yyyy-MM-ddTHH:mm:ssZ")
        }
        let signedYear = isNegative ? -year : year
        guard (1...12).contains(month), (1...daysIn(month: month, of: signedYear)).contains(day), hour < 24,
            minute < 60, second <= 60
        else {
            throw PropertyListSyntaxError("<date> \(quoted(text)) is not a date: a field is out of its range")
        }
        let days = daysSince1970(year: signedYear, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// The number of days in `month` (1-12) of `year`, in the proleptic Gregorian calendar.
    static func daysIn(month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The days from 1 January 1970 to the date, negative before it, in the proleptic Gregorian
    /// calendar (year 0 is 1 BC). Howard Hinnant's `days_from_civil`: it counts in 400-year eras,
    /// which have a whole number of days, from a year that starts in March, so the leap day is last.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
