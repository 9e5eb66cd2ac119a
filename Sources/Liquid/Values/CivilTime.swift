import Foundation

/// Calendar arithmetic on the proleptic Gregorian calendar without Foundation's `Calendar`
/// (whose ICU-backed setup costs more than a whole field render).
enum Civil {
    /// Days since 1970-01-01 of a year, month (1-12) and day.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Year, month (1-12) and day of a count of days since 1970-01-01.
    static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    /// Floor division (`b` > 0), for every `a`.
    static func floorDiv(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return a % b < 0 ? q - 1 : q
    }

    /// Floor modulo (`b` > 0): from 0 to `b - 1`.
    static func floorMod(_ a: Int, _ b: Int) -> Int {
        let r = a % b
        return r < 0 ? r + b : r
    }

    /// Broken-down local time of Unix seconds shown at `offset` seconds from UTC.
    struct Fields {
        var year, month, day, hour, minute, second: Int
        /// 0 = Sunday.
        var weekday: Int
        /// 1-based day of the year.
        var yday: Int
        /// Days since 1970-01-01.
        var days: Int
    }

    static func fields(unixSeconds: Int, offset: Int) -> Fields {
        // Days and seconds apart, so that no sum overflows at the ends of the 64-bit range.
        let secs = floorMod(floorMod(unixSeconds, 86_400) + floorMod(offset, 86_400), 86_400)
        let days = floorDiv(unixSeconds, 86_400) + floorDiv(offset, 86_400)
            + floorDiv(floorMod(unixSeconds, 86_400) + floorMod(offset, 86_400), 86_400)
        let (y, m, d) = date(days: days)
        let weekday = ((days % 7) + 7 + 4) % 7
        let yday = days - Civil.days(year: y, month: 1, day: 1) + 1
        return Fields(year: y, month: m, day: d, hour: secs / 3600, minute: (secs % 3600) / 60, second: secs % 60,
                      weekday: weekday, yday: yday, days: days)
    }

    /// ISO 8601 week-based year and week number.
    static func isoWeek(_ f: Fields) -> (year: Int, week: Int) {
        let isoWeekday = f.weekday == 0 ? 7 : f.weekday
        // The Thursday of this week decides the year.
        let thursday = f.days - isoWeekday + 4
        let (ty, _, _) = date(days: thursday)
        let jan1 = days(year: ty, month: 1, day: 1)
        return (ty, (thursday - jan1) / 7 + 1)
    }
}

extension LiquidTime {
    /// Parses an ISO 8601 / RFC 3339 time: `2026-11-22T10:00:00Z`, with a fraction, an
    /// offset (`+05:30`, `+0530`) or a space for the `T`; `nil` when it is not one.
    public static func parseISO8601(_ text: String) -> Date? {
        /// A cursor over the bytes (a value, not functions capturing an index: captured
        /// variables are checked for exclusive access at run time on every call).
        struct Cursor {
            let b: [UInt8]
            var i = 0
            mutating func num(_ count: Int) -> Int? {
                guard i + count <= b.count else { return nil }
                var v = 0
                for k in i..<(i + count) {
                    guard b[k] >= 48 && b[k] <= 57 else { return nil }
                    v = v * 10 + Int(b[k] - 48)
                }
                i += count
                return v
            }
            mutating func expect(_ c: UInt8) -> Bool {
                guard i < b.count, b[i] == c else { return false }
                i += 1
                return true
            }
        }
        var c = Cursor(b: Array(text.utf8))
        guard let year = c.num(4), c.expect(UInt8(ascii: "-")), let month = c.num(2), c.expect(UInt8(ascii: "-")), let day = c.num(2),
              (1...12).contains(month), day >= 1, day <= 31,
              c.i < c.b.count, c.b[c.i] == UInt8(ascii: "T") || c.b[c.i] == UInt8(ascii: "t") || c.b[c.i] == UInt8(ascii: " ")
        else { return nil }
        c.i += 1
        guard let hour = c.num(2), c.expect(UInt8(ascii: ":")), let minute = c.num(2), c.expect(UInt8(ascii: ":")), let second = c.num(2),
              hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if c.i < c.b.count && (c.b[c.i] == UInt8(ascii: ".") || c.b[c.i] == UInt8(ascii: ",")) {
            c.i += 1
            var scale = 0.1
            let start = c.i
            while c.i < c.b.count && c.b[c.i] >= 48 && c.b[c.i] <= 57 { fraction += Double(c.b[c.i] - 48) * scale; scale /= 10; c.i += 1 }
            if c.i == start { return nil }
        }
        var offset = 0
        guard c.i < c.b.count else { return nil }
        if c.b[c.i] == UInt8(ascii: "Z") || c.b[c.i] == UInt8(ascii: "z") {
            c.i += 1
        } else if c.b[c.i] == UInt8(ascii: "+") || c.b[c.i] == UInt8(ascii: "-") {
            let sign = c.b[c.i] == UInt8(ascii: "-") ? -1 : 1
            c.i += 1
            guard let oh = c.num(2) else { return nil }
            _ = c.expect(UInt8(ascii: ":"))
            guard let om = c.num(2) else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard c.i == c.b.count else { return nil }
        let seconds = Civil.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }
}
