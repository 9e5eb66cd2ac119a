import Foundation
import Liquid

/// Braze's `${...}` attribute syntax over a ``RenderContextDocument``.
///
/// - `${first_name}` and the other standard attributes read the profile, with Braze's names
///   mapped to the user export's (`${email_address}` is `email`, `${city}` is `home_city`,
///   `${random_bucket_number}` is `random_bucket`...); `${last_used_app_date}`,
///   `${most_recent_app_version}` and `${most_recent_location}` are worked out from the
///   export's `apps[]` and `last_coordinates` (see ``ProfileAttributes``).
/// - `custom_attribute.${name}` reads `profile.custom_attributes` (names may contain spaces).
/// - `api_trigger_properties.${x}`, `canvas_entry_properties.${x}`, `event_properties.${x}`,
///   `context.${x}`, `campaign.${x}`, `canvas.${x}` read the document's namespaces.
/// - `targeted_device.${x}` is the device the push is sent to: the document's
///   `targeted_device` (one device, or one per platform: `{"ios": {...}, "android": {...}}`),
///   else the profile's device of the platform being rendered (``BrazeSession``).
/// - `most_recently_used_device.${x}` and `subscribed_state.${x}` are worked out from the
///   profile (``ProfileAttributes``).
/// - `content_blocks.${name}` renders a content block (see ``ContentBlockSource``).
/// - Any other `namespace.${x}` reads `profile.namespace.x`.
public struct BrazeAttributeSyntax: LiquidAttributeSyntax {
    /// Braze standard attribute names and the user-export fields they read.
    public static let standardAttributes: [String: String] = [
        "first_name": "first_name", "last_name": "last_name", "email_address": "email",
        "phone_number": "phone", "date_of_birth": "dob", "city": "home_city", "country": "country",
        "language": "language", "gender": "gender", "time_zone": "time_zone", "user_id": "external_id",
        "braze_id": "braze_id", "random_bucket_number": "random_bucket", "most_recent_locale": "most_recent_locale",
        "last_used_app_date": "last_used_app_date", "most_recent_app_version": "most_recent_app_version",
        "most_recent_location": "most_recent_location",
    ]

    /// Standard attributes worked out from the export rather than read from one field.
    static let derivedStandardAttributes: Set<String> = ["last_used_app_date", "most_recent_app_version", "most_recent_location"]

    /// Namespaces whose attributes are worked out from the profile or the send.
    static let derivedNamespaces: Set<String> = ["targeted_device", "most_recently_used_device", "subscribed_state"]

    private static let profileKey = PropertyKey("profile")
    private static let customAttributesKey = PropertyKey("custom_attributes")

    let contentBlocks: ContentBlockStore?
    let recorder: AttributeRecorder?

    init(contentBlocks: ContentBlockStore?, recorder: AttributeRecorder? = nil) {
        self.contentBlocks = contentBlocks
        self.recorder = recorder
    }

    public func expression(namespace: String?, name: String) throws -> LiquidExpression {
        try expression(namespace: namespace, name: name, offset: 0)
    }

    public func expression(namespace: String?, name: String, offset: Int) throws -> LiquidExpression {
        if let recorder { recorder.record(AttributeReference(namespace: namespace, name: name)) }
        // (Names arrays written as literals: one allocation of the exact size each.)
        func path(_ names: [PropertyKey]) -> LiquidExpression {
            .variable(VariablePath(names: names, attribute: name, namespace: namespace))
        }
        guard let namespace else {
            if Self.derivedStandardAttributes.contains(name) { return .custom(DerivedAttribute(namespace: nil, name: name)) }
            return path([Self.profileKey, PropertyKey(Self.standardAttributes[name] ?? name)])
        }
        switch namespace {
        case "custom_attribute", "custom_attributes":
            return path([Self.profileKey, Self.customAttributesKey, PropertyKey(name)])
        case "content_blocks":
            return .custom(ContentBlockExpression(name: name, store: contentBlocks, offset: offset))
        case _ where Self.derivedNamespaces.contains(namespace):
            return .custom(DerivedAttribute(namespace: namespace, name: name))
        default:
            if let key = RenderContextDocument.namespaceKey(namespace) { return path([key, PropertyKey(name)]) }
            return path([Self.profileKey, PropertyKey(namespace), PropertyKey(name)])
        }
    }
}

/// What the Braze dialect knows of a message besides its document.
public enum BrazeSession {
    /// The `RenderContext.sessionInfo` key of the platform a message is rendered for.
    public static let platformKey = "braze.platform"

    /// The session information of a message rendered for `platform` (`ios`, `android`):
    /// what `targeted_device.${...}` picks the recipient's device by.
    public static func info(platform: String?) -> [String: any Sendable] {
        switch platform {
        case nil: return [:]
        // (Made once: a message of a batch shares them, no dictionary per recipient.)
        case "ios"?: return iosInfo
        case "android"?: return androidInfo
        case let other?: return [platformKey: other]
        }
    }

    private static let iosInfo: [String: any Sendable] = [platformKey: "ios"]
    private static let androidInfo: [String: any Sendable] = [platformKey: "android"]
}

extension RenderContext {
    /// The platform the message is rendered for (`ios`, `android`), when the render was given one
    /// (``BrazeSession/info(platform:)``).
    public var pushPlatform: String? { sessionInfo[BrazeSession.platformKey] as? String }
}

/// An attribute worked out from the render context document when it is read (see
/// ``ProfileAttributes``): `targeted_device.${...}`, `most_recently_used_device.${...}`,
/// `subscribed_state.${...}`, `${last_used_app_date}`, `${most_recent_app_version}`,
/// `${most_recent_location}`. It reads the document itself (an `assign` cannot hide it).
struct DerivedAttribute: LiquidCustomExpression {
    let namespace: String?
    let name: String

    func evaluate(_ context: RenderContext) throws -> LiquidValue {
        Self.value(namespace: namespace, name: name, document: context.renderData, platform: context.pushPlatform)
    }

    /// The attribute's value in `document` for a message to `platform`.
    static func value(namespace: String?, name: String, document: LiquidValue, platform: String?) -> LiquidValue {
        let profile = document.property("profile")
        switch namespace {
        case nil:
            switch name {
            case "last_used_app_date": return ProfileAttributes.lastUsedAppDate(profile: profile)
            case "most_recent_app_version": return ProfileAttributes.mostRecentAppVersion(profile: profile)
            case "most_recent_location": return ProfileAttributes.mostRecentLocation(profile: profile)
            default: return profile.property(name)
            }
        case "targeted_device"?:
            return targetedDevice(document: document, profile: profile, platform: platform).property(name)
        case "most_recently_used_device"?:
            return ProfileAttributes.mostRecentlyUsedDevice(profile: profile).property(name)
        case "subscribed_state"?:
            return ProfileAttributes.subscribedState(profile: profile, name: name)
        case let other?:
            return profile.property(other).property(name)
        }
    }

    /// The document's `targeted_device` (for `platform` when it gives one per platform), else
    /// the profile's device of `platform`.
    static func targetedDevice(document: LiquidValue, profile: LiquidValue, platform: String?) -> LiquidValue {
        let given = document.property("targeted_device")
        if case .object(let o) = given, !o.isEmpty {
            let perPlatform = o.allSatisfy { entry in
                if case .object = entry.value { return ProfileAttributes.platformName(entry.key) == entry.key } else { return false }
            }
            guard perPlatform else { return given }
            return platform.flatMap { o[ProfileAttributes.platformName($0)] } ?? .nil
        }
        guard let platform else { return .nil }
        return ProfileAttributes.targetedDevice(profile: profile, platform: platform)
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
    /// read from one field (`["custom_attributes", "points"]`); `nil` for send-time namespaces,
    /// content blocks and attributes worked out from several fields (see ``value(in:)``).
    public var profilePath: [String]? {
        switch namespace {
        case nil where BrazeAttributeSyntax.derivedStandardAttributes.contains(name): return nil
        case nil: return [BrazeAttributeSyntax.standardAttributes[name] ?? name]
        case "custom_attribute"?, "custom_attributes"?: return ["custom_attributes", name]
        case let ns? where RenderContextDocument.namespaces.contains(ns) || ns == "content_blocks": return nil
        case let ns? where BrazeAttributeSyntax.derivedNamespaces.contains(ns): return nil
        case let ns?: return [ns, name]
        }
    }

    /// Whether this is a profile attribute (read from the profile, or worked out from it), as
    /// opposed to a send-time namespace or a content block.
    public var isProfileAttribute: Bool {
        switch namespace {
        case nil, "custom_attribute"?, "custom_attributes"?: return true
        case let ns?: return !(RenderContextDocument.namespaces.contains(ns) || ns == "content_blocks")
        }
    }

    /// Its value for `profile` (a Braze user export), as a template reads it; a
    /// `targeted_device.${...}` attribute is the profile's iOS device, else its Android one.
    /// `nil` for what is not a profile attribute.
    public func value(in profile: LiquidValue) -> LiquidValue? {
        guard isProfileAttribute else { return nil }
        if let path = profilePath {
            var v = profile
            for k in path { v = v.property(k) }
            return v
        }
        let document: LiquidValue = ["profile": profile]
        if namespace == "targeted_device" {
            let ios = DerivedAttribute.value(namespace: namespace, name: name, document: document, platform: "ios")
            return ios.isNil ? DerivedAttribute.value(namespace: namespace, name: name, document: document, platform: "android") : ios
        }
        return DerivedAttribute.value(namespace: namespace, name: name, document: document, platform: nil)
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
