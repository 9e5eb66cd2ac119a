import Foundation
import Liquid

/// What one render sees: a user profile (Braze's user-export object) and the properties of
/// the send, as one JSON document:
///
/// ```json
/// {"profile": {...}, "api_trigger_properties": {...}, "canvas_entry_properties": {...},
///  "event_properties": {...}, "context": {...}, "campaign": {...}, "canvas": {...},
///  "now": "2026-11-22T10:00:00Z"}
/// ```
///
/// Every key is optional; unknown keys are kept. `now` is the send time that `'now'` means
/// (the current time when absent).
public struct RenderContextDocument: Sendable {
    /// The namespaces a document may carry besides `profile` and `now`.
    public static let namespaces = ["api_trigger_properties", "canvas_entry_properties", "event_properties", "context", "campaign", "canvas"]
    /// The keys of a document, with their fingerprints computed once (documents are checked per recipient).
    private static let namespaceKeys = namespaces.map { PropertyKey($0) }

    /// The key of the document namespace `name` (`api_trigger_properties`...), or `nil`.
    static func namespaceKey(_ name: String) -> PropertyKey? {
        guard let i = namespaces.firstIndex(of: name) else { return nil }
        return namespaceKeys[i]
    }
    private static let profileKey = PropertyKey("profile")
    private static let nowKey = PropertyKey("now")
    private static let externalIDKey = PropertyKey("external_id")

    /// The whole document, as templates read it.
    public private(set) var value: LiquidValue
    /// The send time, when the document fixes one.
    public var now: Date?

    /// A document from its parts.
    public init(profile: LiquidValue = [:], properties: [String: LiquidValue] = [:], now: Date? = nil) {
        var object = LiquidObject()
        object["profile"] = profile
        for key in Self.namespaces { if let v = properties[key] { object[key] = v } }
        self.value = .object(object)
        self.now = now
    }

    /// Reads a document from JSON; errors name the line and column.
    public init(json: String) throws {
        try self.init(parser: JSONValueParser(json))
    }

    /// Reads a document from the UTF-8 JSON in `buffer[range]` (one line of a block of
    /// NDJSON, read in place); errors name the line and column within the range.
    public init(jsonBuffer buffer: [UInt8], range: Range<Int>) throws {
        try self.init(parser: JSONValueParser(buffer: buffer, range: range))
    }

    private init(parser: JSONValueParser) throws {
        var parser = parser
        let parsed: LiquidValue
        do { parsed = try parser.parse() } catch let e as JSONValueParser.SyntaxError {
            throw PersonalizationError.invalidDocument("\(e.line):\(e.column): \(e.message)")
        }
        try self.init(value: parsed)
    }

    /// A document from an already parsed JSON object.
    public init(value: LiquidValue) throws {
        guard case .object(var object) = value else {
            throw PersonalizationError.invalidDocument("a render context document is a JSON object")
        }
        if let profile = object[Self.profileKey] {
            switch profile {
            case .object, .nil: break
            default: throw PersonalizationError.invalidDocument("'profile' must be an object (a Braze user export)")
            }
        } else {
            object["profile"] = [:]
        }
        for key in Self.namespaceKeys {
            if let v = object[key] {
                switch v {
                case .object, .nil: break
                default: throw PersonalizationError.invalidDocument("'\(key.name)' must be an object")
                }
            }
        }
        if let now = object[Self.nowKey] {
            guard case .string(let text) = now, let date = parseISO8601(text) else {
                throw PersonalizationError.invalidDocument("'now' must be an ISO 8601 time such as 2026-11-22T10:00:00Z, got \(now.jsonString)")
            }
            self.now = date
        }
        self.value = .object(object)
    }

    /// The profile object.
    public var profile: LiquidValue {
        get { value.property(Self.profileKey) }
        set { set("profile", newValue) }
    }

    /// The profile's `external_id`, when it has one.
    public var externalID: String? { profile.property(Self.externalIDKey).stringValue }

    /// Sets a top-level key (`api_trigger_properties`, ...).
    public mutating func set(_ key: String, _ newValue: LiquidValue) {
        guard case .object(var o) = value else { return }
        o[key] = newValue
        value = .object(o)
    }

    /// Render options for this document: its `now` as the clock (or `fallbackNow`), UTC.
    public func renderOptions(strictVariables: Bool = false, fallbackNow: @escaping @Sendable () -> Date = { Date() }) -> RenderOptions {
        if let fixed = now { return RenderOptions(strictVariables: strictVariables, now: { fixed }) }
        return RenderOptions(strictVariables: strictVariables, now: fallbackNow)
    }
}

/// Parses an ISO 8601 time (`2026-11-22T10:00:00Z`, with fractions or an offset).
public func parseISO8601(_ text: String) -> Date? { LiquidTime.parseISO8601(text) }

/// Problems with profiles, documents, content blocks and Connected Content.
public enum PersonalizationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A render context document (or profile) that is not what it must be.
    case invalidDocument(String)
    /// A `{{content_blocks.${name}}}` with no such block.
    case contentBlockNotFound(String)
    /// A Connected Content credentials file (or variable) that is not what it must be.
    case invalidCredentials(String)

    public var description: String {
        switch self {
        case .invalidDocument(let m): return "invalid render context document: \(m)"
        case .contentBlockNotFound(let n): return "content block '\(n)' not found"
        case .invalidCredentials(let m): return "invalid Connected Content credentials: \(m)"
        }
    }
}
