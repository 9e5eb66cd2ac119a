import Foundation
import Liquid

/// Braze's `${...}` attribute syntax over a ``RenderContextDocument``.
///
/// - `${first_name}` and the other standard attributes read the profile, with Braze's names
///   mapped to the user export's (`${email_address}` is `email`, `${city}` is `home_city`...).
/// - `custom_attribute.${name}` reads `profile.custom_attributes` (names may contain spaces).
/// - `api_trigger_properties.${x}`, `canvas_entry_properties.${x}`, `event_properties.${x}`,
///   `context.${x}`, `campaign.${x}`, `canvas.${x}` read the document's namespaces.
/// - `content_blocks.${name}` renders a content block (see ``ContentBlockSource``).
/// - Any other `namespace.${x}` reads `profile.namespace.x` (`most_recently_used_device.${model}`).
public struct BrazeAttributeSyntax: LiquidAttributeSyntax {
    /// Braze standard attribute names and the user-export fields they read.
    public static let standardAttributes: [String: String] = [
        "first_name": "first_name", "last_name": "last_name", "email_address": "email",
        "phone_number": "phone", "date_of_birth": "dob", "city": "home_city", "country": "country",
        "language": "language", "gender": "gender", "time_zone": "time_zone", "user_id": "external_id",
        "braze_id": "braze_id",
    ]

    private static let profileKey = PropertyKey("profile")
    private static let customAttributesKey = PropertyKey("custom_attributes")

    let contentBlocks: ContentBlockStore?
    let recorder: AttributeRecorder?

    init(contentBlocks: ContentBlockStore?, recorder: AttributeRecorder? = nil) {
        self.contentBlocks = contentBlocks
        self.recorder = recorder
    }

    public func expression(namespace: String?, name: String) throws -> LiquidExpression {
        if let recorder { recorder.record(AttributeReference(namespace: namespace, name: name)) }
        // (Names arrays written as literals: one allocation of the exact size each.)
        func path(_ names: [PropertyKey]) -> LiquidExpression {
            .variable(VariablePath(names: names, attribute: name, namespace: namespace))
        }
        guard let namespace else {
            return path([Self.profileKey, PropertyKey(Self.standardAttributes[name] ?? name)])
        }
        switch namespace {
        case "custom_attribute", "custom_attributes":
            return path([Self.profileKey, Self.customAttributesKey, PropertyKey(name)])
        case "content_blocks":
            return .custom(ContentBlockExpression(name: name, store: contentBlocks))
        default:
            if let key = RenderContextDocument.namespaceKey(namespace) { return path([key, PropertyKey(name)]) }
            return path([Self.profileKey, PropertyKey(namespace), PropertyKey(name)])
        }
    }
}

/// A `${...}` reference a template makes: `${first_name}` (no namespace) or
/// `custom_attribute.${points}`.
public struct AttributeReference: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// `custom_attribute`, `api_trigger_properties`... or `nil` for a standard attribute.
    public var namespace: String?
    /// The attribute's name.
    public var name: String

    /// A reference.
    public init(namespace: String?, name: String) {
        self.namespace = namespace
        self.name = name
    }

    public var description: String { namespace.map { "\($0).${\(name)}" } ?? "${\(name)}" }

    public static func < (a: AttributeReference, b: AttributeReference) -> Bool { a.description < b.description }

    /// Where this attribute lives in a Braze user export, when it is a profile attribute
    /// (`["custom_attributes", "points"]`); `nil` for send-time namespaces and content blocks.
    public var profilePath: [String]? {
        switch namespace {
        case nil: return [BrazeAttributeSyntax.standardAttributes[name] ?? name]
        case "custom_attribute"?, "custom_attributes"?: return ["custom_attributes", name]
        case let ns? where RenderContextDocument.namespaces.contains(ns) || ns == "content_blocks": return nil
        case let ns?: return [ns, name]
        }
    }
}

/// Collects the attributes templates read while they are parsed (for `pushliquid check`).
public final class AttributeRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [AttributeReference] = []

    /// An empty recorder.
    public init() {}

    func record(_ reference: AttributeReference) {
        lock.lock()
        defer { lock.unlock() }
        if !seen.contains(reference) { seen.append(reference) }
    }

    /// The references recorded, in first-seen order; `reset` empties the list.
    public func take() -> [AttributeReference] {
        lock.lock()
        defer { lock.unlock(); seen = [] }
        return seen
    }
}
