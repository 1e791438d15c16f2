import FoundationEssentials

/// HTTP-dates (RFC 9110 §5.6.7): the preferred IMF-fixdate, and the obsolete RFC 850 and asctime
/// forms that recipients must still accept, always in GMT.
///
///     Sun, 06 Nov 1994 08:49:37 GMT    IMF-fixdate
///     Sunday, 06-Nov-94 08:49:37 GMT   RFC 850
///     Sun Nov  6 08:49:37 1994         asctime
///
/// Parsed by hand rather than with `DateFormatter`, which is not in FoundationEssentials: the
/// three forms are fixed, English and in one time zone, so no calendar or locale is needed.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// The date `text` names, or nil. Runs of spaces count as one; names are matched without
    /// regard to case. A two-digit RFC 850 year more than 50 years after `now` is taken as the
    /// most recent past year with the same last two digits, as RFC 9110 requires.
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        let words = text.split(separator: " ").map { $0.lowercased() }
        switch words.count {
        case 6:  // IMF-fixdate: day, DD Mon YYYY HH:MM:SS GMT
            guard words[0].hasSuffix(","), days.contains(String(words[0].dropLast())), words[5] == "gmt",
                words[1].count == 2, words[3].count == 4
            else { return nil }
            return date(year: number(words[3]), month: month(words[2]), day: number(words[1]), time: words[4])
        case 4:  // RFC 850: weekday, DD-Mon-YY HH:MM:SS GMT
            guard words[0].hasSuffix(","), longDays.contains(String(words[0].dropLast())), words[3] == "gmt"
            else { return nil }
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 2, parts[2].count == 2, let twoDigits = number(parts[2]) else {
                return nil
            }
            return date(
                year: rfc850Year(twoDigits, now: now), month: month(String(parts[1])), day: number(parts[0]),
                time: words[2])
        case 5:  // asctime: day Mon D HH:MM:SS YYYY
            guard days.contains(words[0]), words[2].count <= 2, words[4].count == 4 else { return nil }
            return date(year: number(words[4]), month: month(words[1]), day: number(words[2]), time: words[3])
        default:
            return nil
        }
    }

    /// The value of a field of ASCII digits only, or nil: `Int("+6")` would be 6, and `Int("-994")` a
    /// year before the common era.
    private static func number(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// The month number (1–12) of a three-letter English name.
    private static func month(_ name: String) -> Int? {
        months.firstIndex(of: name).map { $0 + 1 }
    }

    /// The full year of an RFC 850 two-digit year: this century's, unless that is more than 50
    /// years ahead of `now`.
    private static func rfc850Year(_ twoDigits: Int, now: Date) -> Int {
        let currentYear = civil(fromDays: Int((now.timeIntervalSince1970 / 86_400).rounded(.down))).year
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    /// The date of a civil date and `HH:MM:SS` in GMT, or nil when any part is missing or out of range.
    private static func date(year: Int?, month: Int?, day: Int?, time: String) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let year, let month, let day, clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        guard (1...12).contains(month) else { return 0 }
        if month == 2 { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28 }
        return [4, 6, 9, 11].contains(month) ? 30 : 31
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil year of a day count from 1970-01-01 (the inverse of `daysSinceEpoch`).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month)
    }
}
