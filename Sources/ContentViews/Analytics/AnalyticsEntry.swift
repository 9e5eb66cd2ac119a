import Foundation
import Liquid

/// Who an analytics entry is about.
public enum UserIdentifier: Sendable, Equatable, Hashable {
    /// The app's own user id.
    case externalID(String)
    /// Braze's id (what a push payload carries).
    case brazeID(String)
    /// Not known in the extension; the app fills it in when it sends (its current user).
    case anonymous
}

/// One pending analytics record: a custom event, a custom attribute or a user attribute.
public struct AnalyticsEntry: Sendable, Equatable {
    /// What it records.
    public enum Kind: String, Sendable { case event, customAttribute = "custom_attribute", userAttribute = "user_attribute" }

    /// The entry's id (its file name in the store, sortable by time).
    public var id: String
    /// What it records.
    public var kind: Kind
    /// Event or attribute name.
    public var name: String
    /// The attribute's value, or the event's properties (an object).
    public var value: LiquidValue
    /// When it happened.
    public var time: Date
    /// Whom it is about.
    public var user: UserIdentifier

    /// A custom event.
    public static func event(_ name: String, properties: LiquidObject = LiquidObject(), user: UserIdentifier, time: Date = Date()) -> AnalyticsEntry {
        AnalyticsEntry(id: "", kind: .event, name: name, value: .object(properties), time: time, user: user)
    }

    /// A custom attribute update.
    public static func customAttribute(_ name: String, _ value: LiquidValue, user: UserIdentifier, time: Date = Date()) -> AnalyticsEntry {
        AnalyticsEntry(id: "", kind: .customAttribute, name: name, value: value, time: time, user: user)
    }

    /// A user attribute update (`email`, `first_name`, `phone`...).
    public static func userAttribute(_ name: String, _ value: LiquidValue, user: UserIdentifier, time: Date = Date()) -> AnalyticsEntry {
        AnalyticsEntry(id: "", kind: .userAttribute, name: name, value: value, time: time, user: user)
    }

    var json: LiquidValue {
        var o = LiquidObject()
        o["kind"] = .string(kind.rawValue)
        o["name"] = .string(name)
        o["value"] = value
        o["time"] = .string(iso8601(time))
        switch user {
        case .externalID(let id): o["external_id"] = .string(id)
        case .brazeID(let id): o["braze_id"] = .string(id)
        case .anonymous: break
        }
        return .object(o)
    }

    init(id: String, kind: Kind, name: String, value: LiquidValue, time: Date, user: UserIdentifier) {
        self.id = id
        self.kind = kind
        self.name = name
        self.value = value
        self.time = time
        self.user = user
    }

    init?(id: String, json: LiquidValue) {
        guard case .string(let k) = json.property("kind"), let kind = Kind(rawValue: k),
              case .string(let name) = json.property("name"),
              case .string(let t) = json.property("time"), let time = LiquidTime.parseISO8601(t) else { return nil }
        let user: UserIdentifier
        if case .string(let e) = json.property("external_id") { user = .externalID(e) }
        else if case .string(let b) = json.property("braze_id") { user = .brazeID(b) }
        else { user = .anonymous }
        self.init(id: id, kind: kind, name: name, value: json.property("value"), time: time, user: user)
    }
}

/// `2026-11-22T10:00:00.000Z`.
func iso8601(_ date: Date) -> String {
    let ms = Int(exactly: (date.timeIntervalSince1970 * 1000).rounded(.down)) ?? 0
    let seconds = Int((Double(ms) / 1000).rounded(.down))
    let time = LiquidTime(date: Date(timeIntervalSince1970: TimeInterval(seconds)), offsetSeconds: 0, zoneName: "UTC")
    // (A fixed format without widths: it cannot reach a limit.)
    return ((try? time.format("%Y-%m-%dT%H:%M:%S")) ?? "") + String(format: ".%03dZ", ms - seconds * 1000)
}
