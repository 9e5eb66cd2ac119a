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
    /// Unix seconds, exact (see ``ZonedTime/seconds``).
    let seconds: Int

    /// A time shown with `offsetSeconds` from UTC.
    public convenience init(date: Date, offsetSeconds: Int, zoneName: String, nanoseconds: Int = 0) {
        self.init(seconds: unixSeconds(of: date), date: date, offsetSeconds: offsetSeconds, zoneName: zoneName, nanoseconds: nanoseconds)
    }

    private init(seconds: Int, date: Date, offsetSeconds: Int, zoneName: String, nanoseconds: Int) {
        self.seconds = seconds
        self.date = date
        self.offsetSeconds = offsetSeconds
        self.zoneName = zoneName
        self.nanoseconds = min(max(nanoseconds, 0), 999_999_999)
    }

    /// `date` shown in `zone`.
    public convenience init(date: Date, in zone: TimeZone) {
        self.init(DateFilter.zoned(date, in: zone))
    }

    /// A zoned time as a drop.
    convenience init(_ z: ZonedTime) {
        self.init(seconds: z.seconds, date: z.date, offsetSeconds: z.offsetSeconds, zoneName: DateFilter.zoneName(z), nanoseconds: z.nanoseconds)
    }

    var zoned: ZonedTime {
        ZonedTime(seconds: seconds, offsetSeconds: offsetSeconds, zoneName: zoneName, zone: nil, nanoseconds: nanoseconds)
    }

    /// Reads a time the way the `date` filter does: `now`/`today` (from the render's clock),
    /// Unix seconds, ISO 8601 and the other common date strings; `nil` when it is none.
    public static func parse(_ value: LiquidValue, options: RenderOptions) -> LiquidTime? {
        DateFilter.parseTime(value, options: options).map { LiquidTime($0) }
    }

    /// The same instant shown in `zone`.
    public func converted(to zone: TimeZone) -> LiquidTime {
        var z = DateFilter.zoned(seconds: seconds, in: zone)
        z.nanoseconds = nanoseconds
        return LiquidTime(z)
    }

    /// Formats with Ruby's `strftime`, directives up to ``LiquidLimits/strftimeWidth`` wide
    /// and results up to ``LiquidLimits/stringBytes`` long (by default; a wider directive or
    /// a longer result throws ``LiquidError`` with ``LiquidError/Reason/limitExceeded(_:)``).
    public func format(_ format: String, limits: LiquidLimits = LiquidLimits()) throws -> String {
        try DateFilter.strftime(format, zoned, maxWidth: limits.strftimeWidth, maxBytes: limits.stringBytes)
    }

    public func liquidProperty(_ key: String) -> LiquidValue? { nil }

    /// Renders as Ruby's `Time#to_s`: `2021-08-04 02:00:00 -0700`.
    public var liquidSelf: LiquidValue {
        // (Directives of the common path: no width, no limit to reach.)
        .string((try? format("%Y-%m-%d %H:%M:%S %z")) ?? "")
    }
}
