import Foundation
import Liquid
import Personalization

/// The platforms a campaign renders for.
public enum Platform: String, Sendable, CaseIterable {
    case ios, android

    /// Braze's payload size cap in bytes: 3,960 on iOS, 3,930 on Android.
    public var sizeLimit: Int {
        switch self {
        case .ios: return 3960
        case .android: return 3930
        }
    }
}

/// A rendered push payload: the exact JSON sent to APNs (iOS) or FCM (Android).
public struct PushPayload: Sendable, Equatable {
    /// The platform.
    public let platform: Platform
    /// The payload, keys in a stable order (parsed back from ``serialized`` when asked for).
    public var json: LiquidValue { (try? JSONValueParser.parse(serialized)) ?? .nil }
    /// The rendered message fields (title, subtitle, body, key-value pairs), for previews.
    public let fields: [RenderedCampaignField]
    /// The serialized payload (compact, deterministic).
    public let serialized: String
    /// The message's `{% message_extras %}` pairs: sent beside the payload (to the send
    /// event), never in it.
    public let messageExtras: [MessageExtra]

    /// A payload from its JSON value; serialized once, here.
    public init(platform: Platform, json: LiquidValue, fields: [RenderedCampaignField], messageExtras: [MessageExtra] = []) {
        self.init(platform: platform, serialized: json.jsonString, fields: fields, messageExtras: messageExtras)
    }

    /// A payload from its serialized JSON text (compact, as `LiquidValue.jsonString` writes it).
    public init(platform: Platform, serialized: String, fields: [RenderedCampaignField], messageExtras: [MessageExtra] = []) {
        self.platform = platform
        self.fields = fields
        self.serialized = serialized
        self.messageExtras = messageExtras
    }

    /// ``messageExtras`` as one JSON object of strings, in order (what Braze sends its send
    /// event as `message_extras`).
    public var messageExtrasJSON: LiquidValue { messageExtrasObject(messageExtras) }

    /// Its size in bytes, as the platform counts it.
    public var byteCount: Int { serialized.utf8.count }
}

/// A rendered field of a campaign.
public struct RenderedCampaignField: Sendable, Equatable {
    /// `title`, `body`, `key_value_pairs.x`, `ios.badge`...
    public var name: String
    /// The key (for key-value pairs) or the name.
    public var key: String
    /// The text.
    public var text: String
}

/// What rendering a campaign for one recipient gives.
public enum PayloadResult: Sendable {
    /// The payload.
    case rendered(PushPayload)
    /// `abort_message` (in `field`) stopped the message.
    case aborted(reason: String?, field: String)
    /// It could not be rendered.
    case failed(PayloadError)
}

/// Why a campaign could not be rendered for a recipient.
public enum PayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A Liquid error in a field, at a position in the campaign file.
    case liquid(field: String, file: String, location: SourceLocation?, message: String)
    /// `ios.badge` rendered to something that is not an integer.
    case badgeNotInteger(rendered: String, file: String, location: SourceLocation?)
    /// A `$json:` key-value pair whose JSON does not parse (the field's place in the file).
    case invalidJSONValue(field: String, file: String, location: SourceLocation?, message: String)
    /// The serialized payload is over the platform's cap; the largest fields are named.
    case payloadTooLarge(bytes: Int, limit: Int, largestFields: [String], file: String)
    /// The render context document was not valid.
    case invalidContext(String)
    /// The promotion codes the payload shows could not be recorded durably, so it must not be
    /// sent.
    case notDurable(String)

    public var description: String {
        switch self {
        case .liquid(let field, let file, let location, let message):
            return "\(file)\(location.map { ":\($0.line):\($0.column)" } ?? ""): error: in \(field): \(message)"
        case .badgeNotInteger(let rendered, let file, let location):
            return "\(file)\(location.map { ":\($0.line):\($0.column)" } ?? ""): error: ios.badge must render to an integer, got '\(rendered)'"
        case .invalidJSONValue(let field, let file, let location, let message):
            return "\(file)\(location.map { ":\($0.line):\($0.column)" } ?? ""): error: in \(field): invalid $json: value (as rendered): \(message)"
        case .payloadTooLarge(let bytes, let limit, let largest, let file):
            return "\(file): error: payload is \(bytes) bytes, over the \(limit)-byte limit; largest fields: \(largest.joined(separator: ", "))"
        case .invalidContext(let message):
            return "error: \(message)"
        case .notDurable(let message):
            return "error: the promotion codes of this payload could not be recorded (\(message)); it must not be sent"
        }
    }
}

extension PayloadResult {
    /// The result as JSON: `{"status": "rendered", "bytes": n, "payload": {...}}` (and
    /// `"message_extras": {...}` when the message has some), `{"status": "aborted", "field":
    /// ..., "reason": ...}` or `{"status": "failed", "error": ...}`.
    public var json: LiquidValue {
        switch self {
        case .rendered(let p):
            var o: LiquidObject = ["status": "rendered", "bytes": .int(p.byteCount), "payload": p.json]
            if !p.messageExtras.isEmpty { o["message_extras"] = p.messageExtrasJSON }
            return .object(o)
        case .aborted(let reason, let field): return ["status": "aborted", "field": .string(field), "reason": reason.map { .string($0) } ?? .nil]
        case .failed(let e): return ["status": "failed", "error": .string(e.description)]
        }
    }
}

/// Message extras as one JSON object of strings, in order.
func messageExtrasObject(_ extras: [MessageExtra]) -> LiquidValue {
    var o = LiquidObject()
    for e in extras { o[e.key] = .string(e.value) }
    return .object(o)
}

/// One recipient's message as a preview shows it (see `CompiledCampaign.preview(_:platform:)`).
public struct PayloadPreview: Sendable {
    /// What a send gets: the payload, the abort or the failure.
    public var result: PayloadResult
    /// The fields' texts as rendered: all of them when the message rendered (even when its
    /// payload is over the cap), those before the field that aborted or failed otherwise.
    public var fields: [RenderedCampaignField] = []
    /// The payload's size in bytes as written (over the cap included); `nil` when none was.
    public var payloadBytes: Int?
    /// What rendered but probably not as meant, at positions in the campaign file.
    public var warnings: [CampaignDiagnostic] = []
    /// The message's `{% message_extras %}` pairs.
    public var messageExtras: [MessageExtra] = []
    /// Where the tag that aborted the message is (`Templates/x.yml:8:9`, or a content block's
    /// file, line and column), when it aborted.
    public var abortPlace: String?

    /// A preview of `result`.
    public init(result: PayloadResult) { self.result = result }
}
