import Foundation

/// A point in time with the UTC offset it is shown in, as a Ruby `Time` carries one.
struct ZonedTime {
    /// Unix seconds, rounded down: kept as an integer, so that every 64-bit time Ruby can
    /// show (`Time.at(2**63 - 1)`) is shown, without a trip through a `Double`.
    var seconds: Int
    var offsetSeconds: Int
    /// Zone abbreviation for `%Z` (empty for a bare offset, as Ruby prints it); computed
    /// from `zone` only when a format asks for it.
    var zoneName: String?
    var zone: TimeZone? = nil
    /// Nanoseconds within the second, kept exactly (a `Date` would round them).
    var nanoseconds: Int = 0

    /// The instant as a `Date` (rounded to what a `Double` holds).
    var date: Date { Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9) }
}

/// The Unix seconds of `date`, rounded down; times beyond what 64 bits of seconds hold (about
/// 292 billion years) are taken as the farthest that do, and a date that is no number as 1970.
func unixSeconds(of date: Date) -> Int {
    let t = date.timeIntervalSince1970.rounded(.down)
    guard !t.isNaN else { return 0 }
    return Int(exactly: t) ?? (t < 0 ? Int.min : Int.max)
}

/// `date: format`: formats a time with Ruby's `strftime`.
enum DateFilter {
    static let all: [LiquidFilter] = [
        LiquidFilter("date", arguments: 1...1) { input, args, context in
            let format = try context.rubyText(args[0])
            if format.isEmpty { return input }
            guard let time = parseTime(input, in: context) else { return input }
            return .string(try strftime(format, time, maxWidth: context.limits.strftimeWidth, maxBytes: context.limits.stringBytes))
        },
    ]

    static func zoned(_ date: Date, in zone: TimeZone) -> ZonedTime {
        var time = zoned(seconds: unixSeconds(of: date), in: zone)
        let fraction = date.timeIntervalSince1970 - date.timeIntervalSince1970.rounded(.down)
        if fraction.isFinite { time.nanoseconds = min(999_999_999, max(0, Int((fraction * 1e9).rounded()))) }
        return time
    }

    static func zoned(seconds: Int, in zone: TimeZone) -> ZonedTime {
        let id = zone.identifier
        if id == "UTC" || id == "GMT" || id == "Etc/UTC" { return ZonedTime(seconds: seconds, offsetSeconds: 0, zoneName: "UTC") }
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
        return ZonedTime(seconds: seconds, offsetSeconds: offset, zoneName: nil, zone: zone)
    }

    static func zoneName(_ time: ZonedTime) -> String {
        if let name = time.zoneName { return name }
        return time.zone?.abbreviation(for: time.date) ?? ""
    }

    /// The reference's `Utils.to_date`: `now`/`today`, Unix seconds (integers or digit
    /// strings), and the date strings Ruby's `Time.parse` reads; `nil` otherwise.
    static func parseTime(_ input: LiquidValue, options: RenderOptions) -> ZonedTime? {
        parseTime(input, zone: { options.timeZone }, now: { options.now })
    }

    /// ``parseTime(_:options:)`` with the options of `context`, read only when the input needs
    /// them (a render's options are not copied for every `date`).
    static func parseTime(_ input: LiquidValue, in context: RenderContext) -> ZonedTime? {
        parseTime(input, zone: { context.options.timeZone }, now: { context.options.now })
    }

    private static func parseTime(_ input: LiquidValue, zone: () -> TimeZone, now: () -> @Sendable () -> Date) -> ZonedTime? {
        switch input {
        case .drop(let d):
            if let t = d.drop as? LiquidTime { return t.zoned }
            return nil
        case .int(let i): return zoned(seconds: i, in: zone())
        case .string(let raw):
            let s = raw.utf8.first.map(isSpace) == true || raw.utf8.last.map(isSpace) == true ? raw.trimmingCharacters() : raw
            if s.isEmpty { return nil }
            let n = s.utf8.count
            if n == 3 || n == 5 {
                let lower = s.lowercased()
                if lower == "now" || lower == "today" { return zoned(now()(), in: zone()) }
            }
            if s.utf8.allSatisfy(isDigit) {
                // Unix seconds; more than 64 bits of them is no time this engine can show.
                guard let i = Int(s) else { return nil }
                return zoned(seconds: i, in: zone())
            }
            if let fast = fastISO8601(s) { return fast }
            return DateStringParser(s).parse(defaultZone: zone(), now: now())
        default:
            return nil
        }
    }

    static let dayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// Ruby's `Time#strftime`, with flags `-` `_` `0` `^` `#`, widths and `%:z`. A width over
    /// `maxWidth` is ``LiquidLimit/strftimeWidth(_:)``; a result over `maxBytes` bytes,
    /// ``LiquidLimit/stringBytes(_:)``.
    static func strftime(_ format: String, _ time: ZonedTime, maxWidth: Int, maxBytes: Int) throws -> String {
        let unix = time.seconds
        let f = Civil.fields(unixSeconds: unix, offset: time.offsetSeconds)
        if let fast = commonStrftime(format, f) { return fast }
        return try fullStrftime(format, time, unix: unix, f, maxWidth: maxWidth, maxBytes: maxBytes)
    }

    /// The common directives (`%Y %m %d %e %H %I %M %S %y %j %b %B %a %A %p %P %%`, each
    /// optionally with `-`), formatted into a stack buffer: no allocation for short results.
    /// `nil` for anything else (the general path handles it).
    static func commonStrftime(_ format: String, _ f: Civil.Fields) -> String? {
        var format = format
        return format.withUTF8 { fmt -> String? in
            guard fmt.count <= 64 else { return nil }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 640) { buffer -> String? in
                // A writer value, not functions capturing a counter: captured variables would
                // be checked for exclusive access at run time on every byte.
                struct Writer {
                    let out: UnsafeMutableBufferPointer<UInt8>
                    var n = 0
                    mutating func put(_ b: UInt8) { out[n] = b; n += 1 }
                    mutating func number(_ v: Int, _ width: Int, _ pad: UInt8, _ unpadded: Bool) {
                        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0)
                        var count = 0
                        var x = v
                        withUnsafeMutableBytes(of: &digits) { d in
                            repeat { d[count] = UInt8(48 + x % 10); x /= 10; count += 1 } while x > 0 && count < 8
                        }
                        if !unpadded { for _ in count..<max(count, width) { put(pad) } }
                        var k = count - 1
                        while k >= 0 {
                            put(withUnsafeBytes(of: &digits) { $0[k] })
                            k -= 1
                        }
                    }
                    mutating func word(_ w: String, _ length: Int? = nil) {
                        for (k, b) in w.utf8.enumerated() {
                            if let length, k >= length { break }
                            put(b)
                        }
                    }
                }
                var out = Writer(out: buffer)
                let hour12 = f.hour % 12 == 0 ? 12 : f.hour % 12
                var i = 0
                while i < fmt.count {
                    let b = fmt[i]
                    if b != UInt8(ascii: "%") { out.put(b); i += 1; continue }
                    i += 1
                    guard i < fmt.count else { return nil }
                    var unpadded = false
                    if fmt[i] == UInt8(ascii: "-") {
                        unpadded = true
                        i += 1
                        guard i < fmt.count else { return nil }
                    }
                    switch fmt[i] {
                    case UInt8(ascii: "Y"):
                        guard f.year >= 0 && f.year <= 9999 else { return nil }
                        out.number(f.year, unpadded ? 0 : 1, 48, unpadded)
                    case UInt8(ascii: "m"): out.number(f.month, 2, 48, unpadded)
                    case UInt8(ascii: "d"): out.number(f.day, 2, 48, unpadded)
                    case UInt8(ascii: "e"): out.number(f.day, 2, 32, unpadded)
                    case UInt8(ascii: "H"): out.number(f.hour, 2, 48, unpadded)
                    case UInt8(ascii: "I"): out.number(hour12, 2, 48, unpadded)
                    case UInt8(ascii: "M"): out.number(f.minute, 2, 48, unpadded)
                    case UInt8(ascii: "S"): out.number(f.second, 2, 48, unpadded)
                    case UInt8(ascii: "y"):
                        guard f.year >= 0 else { return nil }
                        out.number(f.year % 100, 2, 48, unpadded)
                    case UInt8(ascii: "j"): out.number(f.yday, 3, 48, unpadded)
                    case UInt8(ascii: "b"), UInt8(ascii: "h"): out.word(monthNames[f.month - 1], 3)
                    case UInt8(ascii: "B"): out.word(monthNames[f.month - 1])
                    case UInt8(ascii: "a"): out.word(dayNames[f.weekday], 3)
                    case UInt8(ascii: "A"): out.word(dayNames[f.weekday])
                    case UInt8(ascii: "p"): out.word(f.hour < 12 ? "AM" : "PM")
                    case UInt8(ascii: "P"): out.word(f.hour < 12 ? "am" : "pm")
                    case UInt8(ascii: "%"):
                        guard !unpadded else { return nil }
                        out.put(UInt8(ascii: "%"))
                    default: return nil
                    }
                    i += 1
                }
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<out.n]), as: UTF8.self)
            }
        }
    }

    static func fullStrftime(_ format: String, _ time: ZonedTime, unix: Int, _ f: Civil.Fields, maxWidth: Int, maxBytes: Int) throws -> String {
        func strftime(_ format: String, _ time: ZonedTime) throws -> String {
            try DateFilter.strftime(format, time, maxWidth: maxWidth, maxBytes: maxBytes)
        }
        let year = f.year, month = f.month, day = f.day, hour = f.hour, minute = f.minute, second = f.second
        let weekday = f.weekday  // 0 = Sunday
        let yday = f.yday
        let nanos = time.nanoseconds

        var out = ""
        // Directives are ASCII: walk the UTF-8 bytes and copy literal runs whole.
        let u = format.utf8
        func text(_ a: String.Index, _ b: String.Index) -> Substring { format[a..<b] }
        var i = u.startIndex
        while i < u.endIndex {
            let next = u.index(after: i)
            guard u[i] == UInt8(ascii: "%") && next < u.endIndex else {
                var j = next
                while j < u.endIndex && u[j] != UInt8(ascii: "%") { j = u.index(after: j) }
                out += text(i, j)
                i = j
                continue
            }
            var j = next
            var flags = StrftimeFlags()
            while j < u.endIndex, u[j] == 0x2D || u[j] == 0x5F || u[j] == 0x30 || u[j] == 0x5E || u[j] == 0x23 {
                flags.insert(Character(UnicodeScalar(u[j])))
                j = u.index(after: j)
            }
            var width: Int?
            while j < u.endIndex, isDigit(u[j]) {
                width = (width ?? 0) * 10 + Int(u[j] - 48)
                if width! > maxWidth { throw LiquidError.Reason.limitExceeded(.strftimeWidth(maxWidth)) }
                j = u.index(after: j)
            }
            var colons = 0
            while j < u.endIndex, u[j] == UInt8(ascii: ":") { colons += 1; j = u.index(after: j) }
            guard j < u.endIndex else { out += text(i, j); break }
            let conv = Character(UnicodeScalar(u[j]))

            func num(_ v: Int, _ w: Int, _ pad: Character = "0") -> String {
                let padChar: Character = flags.contains("_") ? " " : (flags.contains("0") ? "0" : pad)
                let text = String(abs(v))
                let sign = v < 0 ? "-" : ""
                if flags.contains("-") { return sign + text }
                let width = width ?? w
                return sign + (text.count >= width ? text : String(repeating: padChar, count: width - text.count - sign.count) + text)
            }
            func str(_ s: String) -> String {
                var t = s
                if flags.contains("^") { t = t.uppercased() }
                if flags.contains("#") { t = t == t.uppercased() ? t.lowercased() : t.uppercased() }
                if let width, t.count < width {
                    t = String(repeating: flags.contains("0") ? "0" : " ", count: width - t.count) + t
                }
                return t
            }
            let hour12 = hour % 12 == 0 ? 12 : hour % 12
            var piece: String
            switch conv {
            case "Y": piece = flags.isEmpty && width == nil ? String(year) : num(year, 4)
            case "C": piece = num(year / 100, 2)
            case "y": piece = num(year % 100, 2)
            case "m": piece = num(month, 2)
            case "B": piece = str(monthNames[month - 1])
            case "b", "h": piece = str(String(monthNames[month - 1].prefix(3)))
            case "d": piece = num(day, 2)
            case "e": piece = num(day, 2, " ")
            case "j": piece = num(yday, 3)
            case "H": piece = num(hour, 2)
            case "k": piece = num(hour, 2, " ")
            case "I": piece = num(hour12, 2)
            case "l": piece = num(hour12, 2, " ")
            case "P": piece = str(hour < 12 ? "am" : "pm")
            case "p": piece = flags.contains("#") ? (hour < 12 ? "am" : "pm") : str(hour < 12 ? "AM" : "PM")
            case "M": piece = num(minute, 2)
            case "S": piece = num(second, 2)
            case "L": piece = String(String(nanos).leftPadded(to: 9).prefix(width ?? 3)).padding(toLength: width ?? 3, withPad: "0", startingAt: 0)
            case "N": piece = String(String(nanos).leftPadded(to: 9).prefix(width ?? 9)).padding(toLength: width ?? 9, withPad: "0", startingAt: 0)
            case "z":
                let off = time.offsetSeconds
                let sign = off < 0 ? "-" : "+"
                let h = abs(off) / 3600, m = (abs(off) % 3600) / 60, s = abs(off) % 60
                switch colons {
                case 1: piece = "\(sign)\(String(h).leftPadded(to: 2)):\(String(m).leftPadded(to: 2))"
                case 2: piece = "\(sign)\(String(h).leftPadded(to: 2)):\(String(m).leftPadded(to: 2)):\(String(s).leftPadded(to: 2))"
                default: piece = "\(sign)\(String(h).leftPadded(to: 2))\(String(m).leftPadded(to: 2))"
                }
            case "Z": piece = str(zoneName(time))
            case "A": piece = str(dayNames[weekday])
            case "a": piece = str(String(dayNames[weekday].prefix(3)))
            case "u": piece = num(weekday == 0 ? 7 : weekday, 1)
            case "w": piece = num(weekday, 1)
            case "U": piece = num((yday - 1 - weekday + 7) / 7, 2)
            case "W": piece = num((yday - 1 - ((weekday + 6) % 7) + 7) / 7, 2)
            case "G", "g", "V":
                let (isoYear, isoWeek) = Civil.isoWeek(f)
                if conv == "V" { piece = num(isoWeek, 2) }
                else if conv == "G" { piece = num(isoYear, 4) }
                else { piece = num(isoYear % 100, 2) }
            case "s": piece = String(unix)
            case "D", "x": piece = try strftime("%m/%d/%y", time)
            case "F": piece = try strftime("%Y-%m-%d", time)
            case "T", "X": piece = try strftime("%H:%M:%S", time)
            case "R": piece = try strftime("%H:%M", time)
            case "r": piece = try strftime("%I:%M:%S %p", time)
            case "c": piece = try strftime("%a %b %e %H:%M:%S %Y", time)
            case "v": piece = try strftime("%e-%^b-%Y", time)
            case "+": piece = try strftime("%a %b %e %H:%M:%S %Z %Y", time)
            case "n": piece = "\n"
            case "t": piece = "\t"
            case "%": piece = "%"
            default: piece = String(text(i, u.index(after: j)))
            }
            out += piece
            if out.utf8.count > maxBytes { throw LiquidError.Reason.limitExceeded(.stringBytes(maxBytes)) }
            i = u.index(after: j)
        }
        return out
    }
}

/// Reads the date strings Ruby's `Time.parse` commonly meets: ISO 8601, `YYYY-MM-DD`,
/// `YYYY-MM-DD HH:MM:SS`, RFC 2822, `March 14, 2015`, `14 Mar 2015 10:00`, with an
/// optional zone (`Z`, `UTC`, `+02:00`, `-0500`). A string without a zone is read in the
/// render's time zone.
/// `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, the common case, without the general parser.
func fastISO8601(_ s: String) -> ZonedTime? {
    var s = s
    return s.withUTF8 { fastISO8601(bytes: $0) }
}

func fastISO8601(bytes b: UnsafeBufferPointer<UInt8>) -> ZonedTime? {
    guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 32, b[13] == 58, b[16] == 58 else { return nil }
    func num(_ a: Int, _ n: Int) -> Int? {
        var v = 0
        for k in a..<(a + n) {
            guard b[k] >= 48 && b[k] <= 57 else { return nil }
            v = v * 10 + Int(b[k] - 48)
        }
        return v
    }
    guard let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2), let se = num(17, 2),
          (1...12).contains(mo), d >= 1, d <= daysInMonth(y, mo), h < 24, mi < 60, se < 61 else { return nil }
    var i = 19
    var nanos = 0
    if i < b.count && b[i] == 46 {
        i += 1
        var digits = 0
        while i < b.count && b[i] >= 48 && b[i] <= 57 {
            if digits < 9 { nanos = nanos * 10 + Int(b[i] - 48); digits += 1 }
            i += 1
        }
        guard digits > 0 else { return nil }
        for _ in digits..<9 { nanos *= 10 }
    }
    guard i < b.count else { return nil }
    var offset = 0
    var utc = false
    if b[i] == 90 && i + 1 == b.count {
        utc = true
    } else if (b[i] == 43 || b[i] == 45) && i + 6 == b.count && b[i + 3] == 58, let oh = num(i + 1, 2), let om = num(i + 4, 2) {
        offset = (b[i] == 45 ? -1 : 1) * (oh * 3600 + om * 60)
    } else {
        return nil
    }
    let local = Civil.days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + se
    return ZonedTime(seconds: local - offset, offsetSeconds: offset, zoneName: utc ? "UTC" : "", zone: nil, nanoseconds: nanos)
}

/// strftime flags (`-_0^#`) without a `Set` allocation.
struct StrftimeFlags {
    private var bits: UInt8 = 0
    private static func bit(_ c: Character) -> UInt8 {
        switch c {
        case "-": return 1
        case "_": return 2
        case "0": return 4
        case "^": return 8
        case "#": return 16
        default: return 0
        }
    }
    mutating func insert(_ c: Character) { bits |= Self.bit(c) }
    func contains(_ c: Character) -> Bool { bits & Self.bit(c) != 0 }
    var isEmpty: Bool { bits == 0 }
}

func daysInMonth(_ y: Int, _ m: Int) -> Int {
    switch m {
    case 2: return Civil.isLeap(y) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
}

struct DateStringParser {
    let text: String
    init(_ text: String) { self.text = text }

    /// Reads the text as Ruby's `Time.parse` does; parts the text leaves out before the first
    /// one it gives come from `now` (`"10:00"` is today, `"March"` this year's), later ones
    /// are their least (`"Mar 2016"` is March 1st).
    func parse(defaultZone: TimeZone, now: () -> Date = { Date() }) -> ZonedTime? {
        var year: Int?, month: Int?, day: Int?
        var hour = 0, minute = 0, second = 0, nanos = 0
        var hourGiven = false
        var zoneIsUTC = false
        var offset: Int?
        var pm: Bool?
        var numbers: [Int] = []
        let scalars = Array(text.unicodeScalars)
        var i = 0
        func isLetter(_ u: UnicodeScalar) -> Bool { (u.value | 0x20) >= 0x61 && (u.value | 0x20) <= 0x7A }
        func isNum(_ u: UnicodeScalar) -> Bool { u.value >= 0x30 && u.value <= 0x39 }
        // A number of more than 9 digits (a fraction of a second aside) is no part of a date
        // this parser reads; read, it could overflow the arithmetic below.
        var run = 0
        for (k, u) in scalars.enumerated() {
            if isNum(u) {
                run = run == 0 && k > 0 && (scalars[k - 1] == "." || scalars[k - 1] == ",") ? -1_000_000 : run + 1
                if run > 9 { return nil }
            } else {
                run = 0
            }
        }
        func readInt(_ from: inout Int) -> (Int, Int) {
            let start = from
            var v = 0
            while from < scalars.count && isNum(scalars[from]) {
                if from - start < 9 { v = v * 10 + Int(scalars[from].value - 48) }
                from += 1
            }
            return (v, from - start)
        }
        var sawDate = false
        while i < scalars.count {
            let u = scalars[i]
            if isNum(u) {
                var j = i
                let (v, len) = readInt(&j)
                if j < scalars.count && scalars[j] == "-" && j + 1 < scalars.count && isNum(scalars[j + 1]) && !sawDate {
                    // Y-M-D
                    var k = j + 1
                    let (m, _) = readInt(&k)
                    guard k < scalars.count, scalars[k] == "-" else { return nil }
                    k += 1
                    let (d, _) = readInt(&k)
                    if len == 4 { year = v; month = m; day = d } else { day = v; month = m; year = d }
                    sawDate = true
                    i = k
                    if i < scalars.count && (scalars[i] == "T" || scalars[i] == "t") { i += 1 }
                    continue
                }
                if j < scalars.count && scalars[j] == "/" && !sawDate {
                    var k = j + 1
                    let (b, _) = readInt(&k)
                    guard k < scalars.count, scalars[k] == "/" else { return nil }
                    k += 1
                    let (c, clen) = readInt(&k)
                    // Ruby's `Date._parse`: y/m/d when the first part is a year, d/m/y when the
                    // last is, and y/m/d (a two-digit year in this century) otherwise.
                    if len >= 3 { year = v; month = b; day = c } else if clen >= 3 { day = v; month = b; year = c } else {
                        year = v < 69 ? 2000 + v : (v < 100 ? 1900 + v : v); month = b; day = c
                    }
                    sawDate = true
                    i = k
                    continue
                }
                if j < scalars.count && scalars[j] == "/" && !sawDate {
                    // "12/25": month and day.
                    var k = j + 1
                    let (b, _) = readInt(&k)
                    month = v
                    day = b
                    sawDate = true
                    i = k
                    continue
                }
                if j < scalars.count && scalars[j] == ":" {
                    hour = v
                    hourGiven = true
                    var k = j + 1
                    minute = readInt(&k).0
                    if k < scalars.count && scalars[k] == ":" {
                        k += 1
                        second = readInt(&k).0
                        if k < scalars.count && (scalars[k] == "." || scalars[k] == ",") {
                            k += 1
                            let s = k
                            while k < scalars.count && isNum(scalars[k]) { k += 1 }
                            let digits = String(String.UnicodeScalarView(scalars[s..<min(k, s + 9)]))
                            nanos = (Int(digits) ?? 0) * Int(pow(10.0, Double(9 - digits.count)))
                        }
                    }
                    i = k
                    continue
                }
                numbers.append(v)
                if len == 4 && year == nil { year = v } else if day == nil && len <= 2 { day = v } else if year == nil { year = v }
                i = j
                continue
            }
            if (u == "+" || u == "-") && i + 1 < scalars.count && isNum(scalars[i + 1]) && (sawDate || year != nil) {
                var k = i + 1
                let start = k
                let (v, len) = readInt(&k)
                var h = 0, m = 0
                if len <= 2 {
                    h = v
                    if k < scalars.count && scalars[k] == ":" { k += 1; m = readInt(&k).0 }
                } else {
                    h = v / 100; m = v % 100
                }
                _ = start
                offset = (u == "-" ? -1 : 1) * (h * 3600 + m * 60)
                i = k
                continue
            }
            if isLetter(u) {
                var k = i
                while k < scalars.count && isLetter(scalars[k]) { k += 1 }
                let word = String(String.UnicodeScalarView(scalars[i..<k])).lowercased()
                i = k
                if let m = DateFilter.monthNames.firstIndex(where: { $0.lowercased().hasPrefix(word) && word.count >= 3 }) {
                    month = m + 1
                    sawDate = true
                } else if word == "am" || word == "pm" {
                    pm = word == "pm"
                } else if word == "z" || word == "utc" || word == "gmt" || word == "ut" {
                    offset = 0
                    zoneIsUTC = true
                } else if DateFilter.dayNames.contains(where: { $0.lowercased().hasPrefix(word) && word.count >= 3 }) {
                    continue
                } else if word == "t" {
                    continue
                } else if word == "st" || word == "nd" || word == "rd" || word == "th" || word == "of" {
                    continue
                } else {
                    return nil
                }
                continue
            }
            i += 1
        }
        // "March 14 2015": a day read as the year when the year came second.
        if let y = year, day == nil, numbers.count >= 2 { day = numbers[0]; year = numbers[1]; _ = y }
        // Ruby's `Time.parse` (`make_time`): what is missing before the first part given comes
        // from now, in the text's zone or the default one; what is missing after it is least.
        // Numbers alone (`2.5`, `[3, 1, 2]`, `1..3`) are no date to `Time.parse`.
        guard sawDate || hourGiven else { return nil }
        if year == nil || month == nil || day == nil {
            if year == nil || (month == nil && year == nil) {
                let instant = unixSeconds(of: now())
                let zoneOffset = offset ?? DateFilter.zoned(seconds: instant, in: defaultZone).offsetSeconds
                let f = Civil.fields(unixSeconds: instant, offset: zoneOffset)
                if year == nil {
                    year = f.year
                    if month == nil {
                        month = f.month
                        if day == nil { day = f.day }
                    }
                }
            }
            month = month ?? 1
            day = day ?? 1
        }
        guard let y = year, let mo = month, let d = day, (1...12).contains(mo), (1...31).contains(d) else { return nil }
        if let pm {
            if pm && hour < 12 { hour += 12 }
            if !pm && hour == 12 { hour = 0 }
        }
        guard hour < 24, minute < 60, second < 61 else { return nil }
        guard d <= daysInMonth(y, mo) else { return nil }
        let localSeconds = Civil.days(year: y, month: mo, day: d) * 86_400 + hour * 3600 + minute * 60 + second
        var time: ZonedTime
        if let offset {
            time = ZonedTime(seconds: localSeconds - offset, offsetSeconds: offset, zoneName: zoneIsUTC ? "UTC" : "")
        } else {
            // Wall-clock time in the default zone: find the offset in force then.
            var seconds = localSeconds
            let id = defaultZone.identifier
            if !(id == "UTC" || id == "GMT" || id == "Etc/UTC") {
                let guess = Date(timeIntervalSince1970: TimeInterval(localSeconds))
                let first = defaultZone.secondsFromGMT(for: guess)
                let second = defaultZone.secondsFromGMT(for: guess.addingTimeInterval(TimeInterval(-first)))
                seconds = localSeconds - second
            }
            time = DateFilter.zoned(seconds: seconds, in: defaultZone)
        }
        time.nanoseconds = nanos
        return time
    }
}
