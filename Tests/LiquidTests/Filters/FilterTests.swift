import Foundation
import Liquid
import LiquidTestSupport
import Testing

@Suite struct MathFilterTests {
    @Test(arguments: [
        ("{{ 7 | divided_by: 2 }}", "3"), ("{{ -7 | divided_by: 2 }}", "-4"), ("{{ 7 | divided_by: 2.0 }}", "3.5"),
        ("{{ 0.1 | plus: 0.2 }}", "0.3"), ("{{ 2.5 | round }}", "3"), ("{{ -2.5 | round }}", "-3"),
        ("{{ 1.005 | round: 2 }}", "1.01"), ("{{ '1.5' | plus: 1 }}", "2.5"), ("{{ -5.5 | modulo: 2 }}", "0.5"),
        ("{{ 4 | at_most: 2.5 }}", "2.5"), ("{{ 'x' | times: 3 }}", "0"),
    ])
    func arithmetic(_ source: String, _ expected: String) throws {
        #expect(try render(source) == expected)
    }

    @Test func integerOverflowIsExactNotACrash() throws {
        // Past 64 bits integers go on exactly, as Ruby's bignums.
        #expect(try render("{{ 9223372036854775807 | plus: 1 }}") == "9223372036854775808")
        #expect(try render("{{ -9223372036854775807 | minus: 10 }}") == "-9223372036854775817")
        #expect(try render("{{ 3037000500 | times: 3037000500 }}") == "9223372037000250000")
        #expect(try render("{{ n | abs }}", ["n": .int(Int.min)]) == "9223372036854775808")
        #expect(try render("{{ n | divided_by: -1 }}", ["n": .int(Int.min)]) == "9223372036854775808")
        #expect(try render("{{ n | modulo: -1 }}", ["n": .int(Int.min)]) == "0")
    }

    @Test func divisionByZeroIsAnError() {
        #expect(liquidError { try render("{{ 1 | divided_by: 0 }}") }?.reason == .zeroDivision)
        #expect(liquidError { try render("{{ 1.5 | modulo: 0.0 }}") }?.reason == .zeroDivision)
    }
}

@Suite struct TruncateWordsTests {
    /// Words are split at any ASCII whitespace, a CRLF pair included (Swift reads "\r\n" as one
    /// character), as the reference does: "a\r\nb c" is three words.
    @Test func crlfSeparatesWords() throws {
        #expect(try render("{{ s | truncatewords: 1 }}", ["s": "a\r\nb c"]) == "a...")
        #expect(try render("{{ s | truncatewords: 2, '' }}", ["s": "a\r\nb\tc"]) == "a b")
    }
}

@Suite struct DefaultFilterTests {
    @Test func keywordArguments() throws {
        #expect(try render("{{ f | default: 'd' }}|{{ f | default: 'd', allow_false: true }}", ["f": false]) == "d|false")
        #expect(try render("{{ e | default: 'd' }}|{{ s | default: 'd' }}", ["e": [], "s": " "]) == "d| ")
    }
}

@Suite struct DateFilterTests {
    let clock = RenderOptions(now: { Date(timeIntervalSince1970: 1_795_860_000) })  // 2026-11-28T10:00:00Z

    @Test func nowAndTodayComeFromTheClock() throws {
        #expect(try render("{{ 'now' | date: '%Y-%m-%d %H:%M' }}|{{ 'today' | date: '%s' }}", options: clock) == "2026-11-28 10:00|1795860000")
    }

    @Test func timeZoneIsARenderOption() throws {
        var options = clock
        options.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        #expect(try render("{{ 'now' | date: '%H:%M %z' }}", options: options) == "19:00 +0900")
        // A string without a zone is read in that zone; one with an offset keeps it.
        #expect(try render("{{ '2026-01-02 03:04' | date: '%s' }}", options: options) == "1767290640")
        #expect(try render("{{ '2026-01-02T03:04:00-05:00' | date: '%H:%M %:z' }}", options: options) == "03:04 -05:00")
    }

    @Test(arguments: [
        ("{{ 1700000000 | date: '%F %T' }}", "2023-11-14 22:13:20"),
        ("{{ 'March 14, 2015' | date: '%A %-d %B' }}", "Saturday 14 March"),
        ("{{ 'Sat, 14 Mar 2015 09:26:53 +0100' | date: '%-I:%M%P %z' }}", "9:26am +0100"),
        ("{{ '2015-03-04' | date: '%e|%-m|%j|%^b|%10A|%U|%W' }}", " 4|3|063|MAR| Wednesday|09|09"),
        ("{{ 'garbage' | date: '%Y' }}", "garbage"),
    ])
    func formats(_ source: String, _ expected: String) throws {
        #expect(try render(source) == expected)
    }
}

@Suite struct StringFilterTests {
    @Test func unicodeAware() throws {
        #expect(try render("{{ 'héllo' | size }}|{{ 'héllo' | slice: -4, 2 }}|{{ 'héllo wörld' | truncate: 8 }}|{{ 'ÉLAN' | capitalize }}") == "5|él|héllo...|Élan")
    }

    @Test func splitLikeRuby() throws {
        #expect(try render("{{ 'a,b,,' | split: ',' | size }}|{{ ' a  b ' | split: ' ' | join: '-' }}|{{ 'abc' | split: '' | join: '-' }}") == "2|a-b|a-b-c")
    }

    @Test func escapingAndEncoding() throws {
        #expect(try render("{{ \"it's <b>\" | escape }}|{{ '&amp; &' | escape_once }}|{{ 'a b/é' | url_encode }}") == "it&#39;s &lt;b&gt;|&amp; &amp;|a+b%2F%C3%A9")
        #expect(try render("{{ 'x?y' | base64_url_safe_encode }}|{{ 'eD95' | base64_url_safe_decode }}") == "eD95|x?y")
    }
}

@Suite struct ArrayFilterTests {
    @Test func sortAndFilters() throws {
        let data: LiquidValue = ["p": [["n": "b", "k": 2], ["n": "A", "k": nil], ["n": "c", "k": 1]]]
        #expect(try render("{{ p | sort: 'k' | map: 'n' | join }}|{{ p | sort_natural: 'n' | map: 'n' | join }}", data) == "c b A|A b c")
        #expect(try render("{{ p | where: 'k' | size }}|{{ p | find: 'k', 1 | map: 'n' }}|{{ p | has: 'k', 3 }}|{{ p | find_index: 'n', 'c' }}", data) == "2|c|false|2")
        #expect(liquidError { try render("{{ a | sort }}", ["a": [1, "x"]]) }?.reason == .argument("cannot sort values of incompatible types"))
    }

    @Test func hugeRangesAreRefusedNotAllocated() {
        #expect(liquidError { try render("{{ (1..100000000000) | join }}") }?.reason == .limitExceeded(.arrayElements(100_000)))
    }
}

@Suite struct CivilTimeTests {
    /// The calendar arithmetic behind `date` agrees with Foundation's Calendar across eras.
    @Test func agreesWithFoundationCalendar() throws {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        var seed: UInt64 = 42
        for _ in 0..<2000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let unix = Int(Int64(bitPattern: seed >> 1) % 8_000_000_000) - 2_000_000_000
            let date = Date(timeIntervalSince1970: TimeInterval(unix))
            let c = cal.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
            let out = try render("{{ t | date: '%Y-%m-%d %H:%M:%S %w %j' }}", ["t": .int(unix)])
            let yday = cal.ordinality(of: .day, in: .year, for: date)!
            let expected = String(format: "%04d-%02d-%02d %02d:%02d:%02d %d %03d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!, c.weekday! - 1, yday)
            #expect(out == expected, "unix \(unix)")
        }
    }

    /// Common formats take a short path; a trailing `%t` (which it leaves to the general
    /// formatter) makes the same format go the general way: both must agree.
    @Test func commonFormatsAgreeWithTheGeneralFormatter() throws {
        let formats = ["%b %-d, %Y", "%Y-%m-%d %H:%M:%S", "%-m/%-d/%y %I:%M %p", "%A, %B %e %P", "%a %j %-j %-H:%-M:%-S",
                       "%d.%m.%Y", "100%% %h %-I %l", "no directives", "%-e|%e|%-d|%d|%-y|%y|%-Y"]
        var seed: UInt64 = 7
        for _ in 0..<300 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let unix = Int(Int64(bitPattern: seed >> 1) % 4_000_000_000) - 1_000_000_000
            for format in formats {
                let short = try render("{{ t | date: f }}", ["t": .int(unix), "f": .string(format)])
                let general = try render("{{ t | date: f }}", ["t": .int(unix), "f": .string(format + "%t")])
                #expect(short + "\t" == general, "\(format) at \(unix)")
            }
        }
    }

    @Test func isoWeeksMatchFoundation() throws {
        var iso = Calendar(identifier: .iso8601)
        iso.timeZone = TimeZone(identifier: "UTC")!
        for day in stride(from: -3000, to: 30000, by: 37) {
            let date = Date(timeIntervalSince1970: TimeInterval(day * 86400))
            let c = iso.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
            #expect(try render("{{ t | date: '%G %V' }}", ["t": .int(day * 86400)]) == String(format: "%d %02d", c.yearForWeekOfYear!, c.weekOfYear!))
        }
    }

    @Test func parsesISO8601() {
        #expect(LiquidTime.parseISO8601("2026-11-22T10:00:00Z") == Date(timeIntervalSince1970: 1_795_341_600))
        #expect(LiquidTime.parseISO8601("2026-11-22T15:30:00+05:30") == Date(timeIntervalSince1970: 1_795_341_600))
        #expect(LiquidTime.parseISO8601("2026-11-22 10:00:00.500Z") == Date(timeIntervalSince1970: 1_795_341_600.5))
        for bad in ["2026-11-22", "2026-13-01T00:00:00Z", "2026-11-22T10:00:00", "2026-11-22T10:00:00Zjunk", "yesterday"] {
            #expect(LiquidTime.parseISO8601(bad) == nil, "\(bad)")
        }
    }
}
