import Foundation
import Liquid

/// The personalized progress card: "4 of 6 sessions · next: Canvas Flows · due Jul 4".
public struct ProgressModel: Sendable, Equatable {
    /// Sessions completed.
    public let completed: Int
    /// Sessions in the course.
    public let total: Int
    /// The next session's name, if any.
    public let nextSessionName: String?
    /// The next session's due date, if any.
    public let dueDate: Date?

    /// Reads `completed_session_count`, `total_session_count`, `next_session_name` and
    /// `next_session_complete_date` (`YYYY-MM-DD` or ISO 8601). Rejects a total of zero and a
    /// count above the total; names every bad key.
    public init(userInfo: LiquidValue) throws {
        var r = PayloadReader(userInfo: userInfo)
        let completed = r.int("completed_session_count")
        let total = r.int("total_session_count")
        let name = r.optionalString("next_session_name")
        var due: Date?
        if let text = r.optionalString("next_session_complete_date") {
            due = Self.parseDate(text)
            if due == nil {
                r.problems.append(KeyProblem(key: "next_session_complete_date", expected: "a date (YYYY-MM-DD or ISO 8601)", found: "\"\(text)\""))
            }
        }
        if let total, total <= 0 {
            r.problems.append(KeyProblem(key: "total_session_count", expected: "a positive integer", found: String(total)))
        }
        if let completed, completed < 0 {
            r.problems.append(KeyProblem(key: "completed_session_count", expected: "zero or more", found: String(completed)))
        }
        if let completed, let total, total > 0, completed > total {
            r.problems.append(KeyProblem(key: "completed_session_count", expected: "at most total_session_count (\(total))", found: String(completed)))
        }
        try r.finish("progress")
        self.completed = completed!
        self.total = total!
        self.nextSessionName = name
        self.dueDate = due
    }

    static func parseDate(_ text: String) -> Date? {
        if let d = LiquidTime.parseISO8601(text) { return d }
        let parts = text.split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), (1...31).contains(d) else { return nil }
        // A date alone means noon UTC, so it shows as the same day in every zone from -11 to +11.
        return LiquidTime.parseISO8601(String(format: "%04d-%02d-%02dT12:00:00Z", y, m, d))
    }

    /// Completed over total, 0 to 1.
    public var fraction: Double { Double(completed) / Double(total) }
    /// Whole percent, rounded down (4 of 6 is 66%): exact for any counts a payload holds (the
    /// product is taken in 128 bits; the model guarantees 0 ≤ completed ≤ total, 0 < total).
    public var percent: Int {
        let product = 100.multipliedFullWidth(by: completed)
        return total.dividingFullWidth((product.high, product.low)).quotient
    }

    /// Every session done.
    public var isCompleted: Bool { completed == total }

    /// The due date for a person in `locale` and `timeZone` (`Jul 4` in en_US, `4 de jul.` in pt_BR).
    public func dueDateText(locale: Locale, timeZone: TimeZone) -> String? {
        guard let dueDate else { return nil }
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.setLocalizedDateFormatFromTemplate("MMMd")
        return formatter.string(from: dueDate)
    }

    /// One line for the card: `4 of 6 sessions · next: Canvas Flows · due Jul 4`.
    public func summary(locale: Locale = Locale(identifier: "en_US"), timeZone: TimeZone = TimeZone(identifier: "UTC")!) -> String {
        if isCompleted { return "All \(total) sessions done!" }
        var parts = ["\(completed) of \(total) sessions"]
        if let n = nextSessionName { parts.append("next: \(n)") }
        if let d = dueDateText(locale: locale, timeZone: timeZone) { parts.append("due \(d)") }
        return parts.joined(separator: " · ")
    }

    /// A text progress bar: `[████████░░░░] 66%`.
    public func bar(width: Int = 20) -> String {
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "] \(percent)%"
    }
}
