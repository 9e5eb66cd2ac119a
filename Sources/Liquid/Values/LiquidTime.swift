import Foundation

/// A point in time shown in a particular UTC offset, as a Ruby `Time` is: what the `date`
/// filter formats, and what a dialect's time filters (Braze's `time_zone`) produce.
public final class LiquidTime: LiquidDrop {
    /// The instant.
    public let date: Date
    /// The UTC offset it is shown in, in seconds.
    public let offsetSeconds: Int
    /// The zone's abbreviation for `%Z` (empty for a bare offset).
    public let zoneName: String
    /// Nanoseconds within the second.
    public let nanoseconds: Int

    /// A time shown with `offsetSeconds` from UTC.
    public init(date: Date, offsetSeconds: Int, zoneName: String, nanoseconds: Int = 0) {
        self.date = date
        self.offsetSeconds = offsetSeconds
        self.zoneName = zoneName
        self.nanoseconds = nanoseconds
    }

    /// `date` shown in `zone`.
    public convenience init(date: Date, in zone: TimeZone) {
        let z = DateFilter.zoned(date, in: zone)
        let nanos = Int(((date.timeIntervalSince1970 - floor(date.timeIntervalSince1970)) * 1e9).rounded())
        self.init(date: date, offsetSeconds: z.offsetSeconds, zoneName: DateFilter.zoneName(z), nanoseconds: min(nanos, 999_999_999))
    }

    var zoned: ZonedTime {
        ZonedTime(date: date, offsetSeconds: offsetSeconds, zoneName: zoneName, zone: nil, nanoseconds: nanoseconds)
    }

    /// Reads a time the way the `date` filter does: `now`/`today` (from the render's clock),
    /// Unix seconds, ISO 8601 and the other common date strings; `nil` when it is none.
    public static func parse(_ value: LiquidValue, options: RenderOptions) -> LiquidTime? {
        DateFilter.parseTime(value, options: options).map {
            LiquidTime(date: $0.date, offsetSeconds: $0.offsetSeconds, zoneName: DateFilter.zoneName($0), nanoseconds: $0.nanoseconds)
        }
    }

    /// The same instant shown in `zone`.
    public func converted(to zone: TimeZone) -> LiquidTime {
        let z = DateFilter.zoned(date, in: zone)
        return LiquidTime(date: date, offsetSeconds: z.offsetSeconds, zoneName: DateFilter.zoneName(z), nanoseconds: nanoseconds)
    }

    /// Formats with Ruby's `strftime`.
    public func format(_ format: String) -> String { DateFilter.strftime(format, zoned) }

    public func liquidProperty(_ key: String) -> LiquidValue? { nil }

    /// Renders as Ruby's `Time#to_s`: `2021-08-04 02:00:00 -0700`.
    public var liquidSelf: LiquidValue { .string(format("%Y-%m-%d %H:%M:%S %z")) }
}
