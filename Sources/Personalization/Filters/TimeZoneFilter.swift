import Foundation
import Liquid

/// Braze's `time_zone` filter: `{{ t | time_zone: 'America/Los_Angeles' | date: '%H:%M' }}`.
///
/// The zone may be an IANA name (`Europe/Lisbon`), a Rails zone name as Braze's user export
/// writes `time_zone` (`Eastern Time (US & Canada)`), an abbreviation Foundation knows
/// (`EST`), or a numeric offset as Braze's documentation writes them: a number of hours
/// (`-5`, `5.5`; the docs' `-0005` is -5), hours and minutes (`-0500`, `+05:30`, `-05`,
/// `UTC+5`, `GMT-03:30`; as an integer literal `-500` or `530`). An unknown zone shows the
/// time in UTC and is a warning at the filter's place, never silently UTC.
enum TimeZoneFilter {
    static let filter = LiquidFilter("time_zone", arguments: 1...1) { input, args, context in
        guard let time = LiquidTime.parse(input, options: context.options) else { return input }
        switch zone(args[0]) {
        case .named(let zone): return .drop(time.converted(to: zone))
        case .offset(let seconds):
            return .drop(LiquidTime(date: time.date, offsetSeconds: seconds, zoneName: "", nanoseconds: time.nanoseconds))
        case .unknown(let text):
            context.warn("time_zone: unknown time zone '\(text)', showing UTC", at: context.currentFilterOffset)
            return .drop(time.converted(to: RenderOptions.utc))
        }
    }

    /// What a `time_zone` argument names.
    enum Zone: Equatable {
        /// A zone with rules (daylight saving time included).
        case named(TimeZone)
        /// A fixed offset from UTC, in seconds.
        case offset(Int)
        /// Nothing known; the argument as written.
        case unknown(String)
    }

    /// The largest offset a zone has (UTC+14, Kiribati; UTC-12).
    static let maxOffsetSeconds = 14 * 3600

    static func zone(_ argument: LiquidValue) -> Zone {
        switch argument {
        case .int(let n):
            // A number of hours (ActiveSupport's TimeZone[-5]), or hours and minutes written
            // together (-0500 read as the integer -500).
            if abs(n) <= 14 { return .offset(n * 3600) }
            let sign = n < 0 ? -1 : 1
            let hhmm = abs(n)
            guard hhmm <= 1400, hhmm % 100 < 60 else { return .unknown(String(n)) }
            return offset(sign, hours: hhmm / 100, minutes: hhmm % 100) ?? .unknown(String(n))
        case .double(let d):
            guard d.isFinite, abs(d) <= 14 else { return .unknown(String(d)) }
            let seconds = (d * 3600).rounded()
            return .offset(Int(seconds))
        case .string(let s):
            return zone(named: s)
        default:
            return .unknown(argument.jsonString)
        }
    }

    static func zone(named text: String) -> Zone {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return .unknown(text) }
        if let iana = railsZones[name], let zone = TimeZone(identifier: iana) { return .named(zone) }
        if let fixed = numericOffset(name) { return fixed }
        if let zone = TimeZone(identifier: name) ?? TimeZone(abbreviation: name) { return .named(zone) }
        return .unknown(text)
    }

    /// `-0500`, `+05:30`, `-05`, `+5`, `0530` with a sign, optionally after `UTC` or `GMT`;
    /// `Z`, `UTC` and `GMT` alone are UTC.
    static func numericOffset(_ text: String) -> Zone? {
        var s = Substring(text.uppercased())
        if s == "Z" || s == "UTC" || s == "GMT" { return .offset(0) }
        for prefix in ["UTC", "GMT"] where s.hasPrefix(prefix) { s = s.dropFirst(prefix.count).drop(while: { $0 == " " }) }
        guard let signChar = s.first, signChar == "+" || signChar == "-" else { return nil }
        let sign = signChar == "-" ? -1 : 1
        let rest = s.dropFirst()
        let digits: Substring
        if let colon = rest.firstIndex(of: ":") {
            let h = rest[..<colon], m = rest[rest.index(after: colon)...]
            guard (1...2).contains(h.count), m.count == 2, h.allSatisfy(\.isASCIIDigit), m.allSatisfy(\.isASCIIDigit) else { return nil }
            return offset(sign, hours: Int(h)!, minutes: Int(m)!)
        } else {
            digits = rest
        }
        guard digits.allSatisfy(\.isASCIIDigit) else { return nil }
        switch digits.count {
        case 1, 2: return offset(sign, hours: Int(digits)!, minutes: 0)
        case 4: return offset(sign, hours: Int(digits.prefix(2))!, minutes: Int(digits.suffix(2))!)
        default: return nil
        }
    }

    static func offset(_ sign: Int, hours: Int, minutes: Int) -> Zone? {
        guard minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        guard seconds <= maxOffsetSeconds else { return nil }
        return .offset(sign * seconds)
    }

    /// Rails' zone names (ActiveSupport 6.1's `TimeZone::MAPPING`, what Braze's user export
    /// writes as `time_zone`) and the IANA zones they stand for.
    static let railsZones: [String: String] = [
        "International Date Line West": "Etc/GMT+12",
        "Midway Island": "Pacific/Midway",
        "American Samoa": "Pacific/Pago_Pago",
        "Hawaii": "Pacific/Honolulu",
        "Alaska": "America/Juneau",
        "Pacific Time (US & Canada)": "America/Los_Angeles",
        "Tijuana": "America/Tijuana",
        "Mountain Time (US & Canada)": "America/Denver",
        "Arizona": "America/Phoenix",
        "Chihuahua": "America/Chihuahua",
        "Mazatlan": "America/Mazatlan",
        "Central Time (US & Canada)": "America/Chicago",
        "Saskatchewan": "America/Regina",
        "Guadalajara": "America/Mexico_City",
        "Mexico City": "America/Mexico_City",
        "Monterrey": "America/Monterrey",
        "Central America": "America/Guatemala",
        "Eastern Time (US & Canada)": "America/New_York",
        "Indiana (East)": "America/Indiana/Indianapolis",
        "Bogota": "America/Bogota",
        "Lima": "America/Lima",
        "Quito": "America/Lima",
        "Atlantic Time (Canada)": "America/Halifax",
        "Caracas": "America/Caracas",
        "La Paz": "America/La_Paz",
        "Santiago": "America/Santiago",
        "Newfoundland": "America/St_Johns",
        "Brasilia": "America/Sao_Paulo",
        "Buenos Aires": "America/Argentina/Buenos_Aires",
        "Montevideo": "America/Montevideo",
        "Georgetown": "America/Guyana",
        "Puerto Rico": "America/Puerto_Rico",
        "Greenland": "America/Godthab",
        "Mid-Atlantic": "Atlantic/South_Georgia",
        "Azores": "Atlantic/Azores",
        "Cape Verde Is.": "Atlantic/Cape_Verde",
        "Dublin": "Europe/Dublin",
        "Edinburgh": "Europe/London",
        "Lisbon": "Europe/Lisbon",
        "London": "Europe/London",
        "Casablanca": "Africa/Casablanca",
        "Monrovia": "Africa/Monrovia",
        "UTC": "Etc/UTC",
        "Belgrade": "Europe/Belgrade",
        "Bratislava": "Europe/Bratislava",
        "Budapest": "Europe/Budapest",
        "Ljubljana": "Europe/Ljubljana",
        "Prague": "Europe/Prague",
        "Sarajevo": "Europe/Sarajevo",
        "Skopje": "Europe/Skopje",
        "Warsaw": "Europe/Warsaw",
        "Zagreb": "Europe/Zagreb",
        "Brussels": "Europe/Brussels",
        "Copenhagen": "Europe/Copenhagen",
        "Madrid": "Europe/Madrid",
        "Paris": "Europe/Paris",
        "Amsterdam": "Europe/Amsterdam",
        "Berlin": "Europe/Berlin",
        "Bern": "Europe/Zurich",
        "Zurich": "Europe/Zurich",
        "Rome": "Europe/Rome",
        "Stockholm": "Europe/Stockholm",
        "Vienna": "Europe/Vienna",
        "West Central Africa": "Africa/Algiers",
        "Bucharest": "Europe/Bucharest",
        "Cairo": "Africa/Cairo",
        "Helsinki": "Europe/Helsinki",
        "Kyiv": "Europe/Kiev",
        "Riga": "Europe/Riga",
        "Sofia": "Europe/Sofia",
        "Tallinn": "Europe/Tallinn",
        "Vilnius": "Europe/Vilnius",
        "Athens": "Europe/Athens",
        "Istanbul": "Europe/Istanbul",
        "Minsk": "Europe/Minsk",
        "Jerusalem": "Asia/Jerusalem",
        "Harare": "Africa/Harare",
        "Pretoria": "Africa/Johannesburg",
        "Kaliningrad": "Europe/Kaliningrad",
        "Moscow": "Europe/Moscow",
        "St. Petersburg": "Europe/Moscow",
        "Volgograd": "Europe/Volgograd",
        "Samara": "Europe/Samara",
        "Kuwait": "Asia/Kuwait",
        "Riyadh": "Asia/Riyadh",
        "Nairobi": "Africa/Nairobi",
        "Baghdad": "Asia/Baghdad",
        "Tehran": "Asia/Tehran",
        "Abu Dhabi": "Asia/Muscat",
        "Muscat": "Asia/Muscat",
        "Baku": "Asia/Baku",
        "Tbilisi": "Asia/Tbilisi",
        "Yerevan": "Asia/Yerevan",
        "Kabul": "Asia/Kabul",
        "Ekaterinburg": "Asia/Yekaterinburg",
        "Islamabad": "Asia/Karachi",
        "Karachi": "Asia/Karachi",
        "Tashkent": "Asia/Tashkent",
        "Chennai": "Asia/Kolkata",
        "Kolkata": "Asia/Kolkata",
        "Mumbai": "Asia/Kolkata",
        "New Delhi": "Asia/Kolkata",
        "Kathmandu": "Asia/Kathmandu",
        "Astana": "Asia/Dhaka",
        "Dhaka": "Asia/Dhaka",
        "Sri Jayawardenepura": "Asia/Colombo",
        "Almaty": "Asia/Almaty",
        "Novosibirsk": "Asia/Novosibirsk",
        "Rangoon": "Asia/Rangoon",
        "Bangkok": "Asia/Bangkok",
        "Hanoi": "Asia/Bangkok",
        "Jakarta": "Asia/Jakarta",
        "Krasnoyarsk": "Asia/Krasnoyarsk",
        "Beijing": "Asia/Shanghai",
        "Chongqing": "Asia/Chongqing",
        "Hong Kong": "Asia/Hong_Kong",
        "Urumqi": "Asia/Urumqi",
        "Kuala Lumpur": "Asia/Kuala_Lumpur",
        "Singapore": "Asia/Singapore",
        "Taipei": "Asia/Taipei",
        "Perth": "Australia/Perth",
        "Irkutsk": "Asia/Irkutsk",
        "Ulaanbaatar": "Asia/Ulaanbaatar",
        "Seoul": "Asia/Seoul",
        "Osaka": "Asia/Tokyo",
        "Sapporo": "Asia/Tokyo",
        "Tokyo": "Asia/Tokyo",
        "Yakutsk": "Asia/Yakutsk",
        "Darwin": "Australia/Darwin",
        "Adelaide": "Australia/Adelaide",
        "Canberra": "Australia/Melbourne",
        "Melbourne": "Australia/Melbourne",
        "Sydney": "Australia/Sydney",
        "Brisbane": "Australia/Brisbane",
        "Hobart": "Australia/Hobart",
        "Vladivostok": "Asia/Vladivostok",
        "Guam": "Pacific/Guam",
        "Port Moresby": "Pacific/Port_Moresby",
        "Magadan": "Asia/Magadan",
        "Srednekolymsk": "Asia/Srednekolymsk",
        "Solomon Is.": "Pacific/Guadalcanal",
        "New Caledonia": "Pacific/Noumea",
        "Fiji": "Pacific/Fiji",
        "Kamchatka": "Asia/Kamchatka",
        "Marshall Is.": "Pacific/Majuro",
        "Auckland": "Pacific/Auckland",
        "Wellington": "Pacific/Auckland",
        "Nuku'alofa": "Pacific/Tongatapu",
        "Tokelau Is.": "Pacific/Fakaofo",
        "Chatham Is.": "Pacific/Chatham",
        "Samoa": "Pacific/Apia",
    ]
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
