import Foundation
import Liquid
import Personalization

/// A campaign with every Liquid field compiled once, ready to render per recipient from
/// many threads.
public struct CompiledCampaign: Sendable {
    /// The campaign.
    public let campaign: Campaign
    let fields: [(field: CampaignField, template: LiquidTemplate)]
    let fileText: String?
    let dialect: BrazeDialect
    let errorMode: LiquidErrorMode

    /// A fresh compilation of the same campaign. Parallel workers each render their own copy,
    /// so no two cores update the reference counts of the same template objects.
    public func recompiled() throws -> CompiledCampaign {
        try CompiledCampaign(campaign, dialect: dialect, fileText: fileText, errorMode: errorMode)
    }

    /// Compiles every field with `dialect`. A Liquid syntax error is a ``CampaignError`` at
    /// its line and column in the campaign file. With `recordAttributes`, the `${...}`
    /// attributes each field reads are kept in ``attributes``.
    public init(_ campaign: Campaign, dialect: BrazeDialect, fileText: String? = nil, errorMode: LiquidErrorMode = .lax, recordAttributes: Bool = false) throws {
        self.campaign = campaign
        self.fileText = fileText
        self.dialect = dialect
        self.errorMode = errorMode
        let recorder = recordAttributes ? AttributeRecorder() : nil
        let env = dialect.environment(errorMode: errorMode, recorder: recorder)
        var compiled: [(CampaignField, LiquidTemplate)] = []
        var attributes: [(field: String, reads: [AttributeReference])] = []
        for field in Self.liquidFields(of: campaign) {
            do {
                compiled.append((field, try env.parse(field.source, name: field.name)))
            } catch let error as LiquidError {
                throw CampaignError(file: campaign.file, location: error.location.map { field.fileLocation(of: $0, fileText: fileText) },
                                    message: "in \(field.name): \(error.message)")
            }
            if let recorder { attributes.append((field.name, recorder.take())) }
        }
        self.fields = compiled
        self.attributes = attributes
        func message(for platform: Platform) -> (MessageTemplate, [CampaignField]) {
            let own = compiled.filter { Self.applies($0.0, to: platform) }
            return (MessageTemplate(fields: own.map { .init(name: $0.0.name, template: $0.1) }), own.map(\.0))
        }
        self.ios = message(for: .ios)
        self.android = message(for: .android)
    }

    /// Each platform's message and the campaign fields behind its fields, in order.
    let ios: (message: MessageTemplate, fields: [CampaignField])
    let android: (message: MessageTemplate, fields: [CampaignField])

    /// Whether a field is rendered for `platform` (`subtitle` and `ios.*` are iOS only).
    static func applies(_ field: CampaignField, to platform: Platform) -> Bool {
        switch platform {
        case .ios: return !field.name.hasPrefix("android.")
        case .android: return field.name != "subtitle" && !field.name.hasPrefix("ios.")
        }
    }

    /// The compiled templates by field name (for `pushliquid check`).
    public var templates: [(name: String, template: LiquidTemplate)] { fields.map { ($0.field.name, $0.template) } }

    /// The attributes each field reads, in field order (compiled with `recordAttributes`).
    public let attributes: [(field: String, reads: [AttributeReference])]

    /// Profile attributes the campaign reads that no profile in `profiles` has a value for.
    public func attributesMissing(from profiles: [LiquidValue]) -> [AttributeReference] {
        var seen: [AttributeReference] = []
        for (_, reads) in attributes { for a in reads where !seen.contains(a) { seen.append(a) } }
        return seen.filter { attr in
            guard let path = attr.profilePath else { return false }
            return !profiles.contains { profile in
                var v = profile
                for k in path { v = v.property(k) }
                return !v.isNil
            }
        }
    }

    static func liquidFields(of c: Campaign) -> [CampaignField] {
        var all = [c.title]
        if let s = c.subtitle { all.append(s) }
        all.append(c.body)
        all += c.keyValuePairs
        for f in [c.ios.badge, c.ios.imageURL, c.ios.deepLink, c.android.imageURL, c.android.deepLink, c.android.summaryText] {
            if let f { all.append(f) }
        }
        return all
    }

    /// The render context document for `profile` with the campaign's preview data; the keys
    /// of `overrides` (except its profile) replace the preview's.
    public func previewDocument(profile: LiquidValue, overrides: RenderContextDocument? = nil, fallbackNow: Date? = nil) throws -> RenderContextDocument {
        var doc = RenderContextDocument(profile: profile, properties: campaign.preview.properties, now: campaign.preview.now ?? fallbackNow)
        if let overrides, case .object(let o) = overrides.value {
            for (k, v) in o where k != "profile" && k != "now" { doc.set(k, v) }
            if let now = overrides.now { doc.now = now }
        }
        return doc
    }

    /// Renders the payload for one recipient. Every field is its own render.
    public func render(_ document: RenderContextDocument, platform: Platform) -> PayloadResult {
        var doc = document
        if case .object(let o) = doc.value, o["campaign"] == nil, !campaign.campaignInfo.isEmpty {
            doc.set("campaign", .object(campaign.campaignInfo))
        }
        let (message, messageFields) = platform == .ios ? ios : android
        var renderedFields: [RenderedCampaignField] = []
        do {
            switch try message.render(doc) {
            case .aborted(let field, let reason):
                return .aborted(reason: reason, field: field)
            case .rendered(let texts):
                renderedFields.reserveCapacity(texts.count)
                for (text, field) in zip(texts, messageFields) {
                    renderedFields.append(RenderedCampaignField(name: field.name, key: field.key, text: text.text))
                }
            }
        } catch let failure as MessageTemplate.FieldError {
            let error = failure.error
            let field = fields.first { $0.field.name == failure.field }!.field
            // Positions inside a content block are the block's own, not the campaign file's.
            let location = error.templateName == field.name ? error.location.map { field.fileLocation(of: $0, fileText: fileText) } : nil
            var message = error.message
            if !error.trace.isEmpty { message += " (in \(error.trace.joined(separator: " > ")))" }
            return .failed(.liquid(field: field.name, file: campaign.file, location: location, message: message))
        } catch {
            return .failed(.liquid(field: "", file: campaign.file, location: nil, message: "\(error)"))
        }
        do {
            let payload = try build(platform: platform, fields: renderedFields)
            let bytes = payload.byteCount
            if bytes > platform.sizeLimit {
                let largest = renderedFields.sorted { $0.text.utf8.count > $1.text.utf8.count }.prefix(3)
                    .map { "\($0.name) (\($0.text.utf8.count) bytes)" }
                return .failed(.payloadTooLarge(bytes: bytes, limit: platform.sizeLimit, largestFields: largest))
            }
            return .rendered(payload)
        } catch let error as PayloadError {
            return .failed(error)
        } catch {
            return .failed(.invalidContext("\(error)"))
        }
    }

    /// A key-value pair's value: `$json:` text parsed, any other text as a string.
    func keyValue(_ field: RenderedCampaignField) throws -> LiquidValue {
        guard field.text.hasPrefix("$json:") else { return .string(field.text) }
        do { return try JSONValueParser.parse(String(field.text.dropFirst(6))) } catch let e as JSONValueParser.SyntaxError {
            throw PayloadError.invalidJSONValue(field: field.name, message: "\(e.line):\(e.column): \(e.message)")
        }
    }

    /// The payload, written straight as JSON text (no intermediate object): the same text
    /// `PushPayload(platform:json:fields:)` gives for the object of these keys in this order.
    func build(platform: Platform, fields: [RenderedCampaignField]) throws -> PushPayload {
        // A handful of fields: a scan beats hashing names into a dictionary.
        func text(_ name: String) -> String? { fields.first { $0.name == name }?.text }
        func nonEmpty(_ name: String) -> String? { text(name).flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 } }
        var json = JSONTextWriter(capacity: 512)
        switch platform {
        case .ios:
            let o = campaign.ios
            var badge: Int?
            if let badgeText = nonEmpty("ios.badge") {
                guard let b = Int(badgeText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    let f = o.badge!
                    throw PayloadError.badgeNotInteger(rendered: badgeText, file: campaign.file, location: SourceLocation(line: f.line, column: f.column))
                }
                badge = b
            }
            let image = nonEmpty("ios.image_url")
            json.beginObject()
            json.key("aps")
            json.beginObject()
            json.key("alert")
            json.beginObject()
            json.key("title"); json.string(text("title") ?? "")
            if let s = text("subtitle"), campaign.subtitle != nil { json.key("subtitle"); json.string(s) }
            json.key("body"); json.string(text("body") ?? "")
            json.endObject()
            if let c = o.category { json.key("category"); json.string(c) }
            if let s = o.sound { json.key("sound"); json.string(s) }
            if let badge { json.key("badge"); json.value(.int(badge)) }
            if let t = o.threadID { json.key("thread-id"); json.string(t) }
            if let l = o.interruptionLevel { json.key("interruption-level"); json.string(l.rawValue) }
            if o.mutableContent || image != nil { json.key("mutable-content"); json.value(.int(1)) }
            if o.contentAvailable { json.key("content-available"); json.value(.int(1)) }
            json.endObject()
            json.key("ab")
            json.beginObject()
            json.key("c")
            if let id = campaign.apiID { json.string(id) } else { json.null() }
            if let image {
                json.key("att")
                json.beginObject()
                json.key("url"); json.string(image)
                json.key("type"); json.string(attachmentType(image))
                json.endObject()
            }
            json.endObject()
            if let link = nonEmpty("ios.deep_link") { json.key("ab_uri"); json.string(link) }
            for f in fields where f.name.hasPrefix("key_value_pairs.") {
                json.key(f.key)
                json.value(try keyValue(f))
            }
            json.endObject()
        case .android:
            var extra = JSONTextWriter()
            extra.beginObject()
            for f in fields where f.name.hasPrefix("key_value_pairs.") {
                extra.key(f.key)
                extra.value(try keyValue(f))
            }
            extra.endObject()
            let o = campaign.android
            json.beginObject()
            json.key("_ab"); json.string("true")
            json.key("t"); json.string(text("title") ?? "")
            json.key("a"); json.string(text("body") ?? "")
            json.key("extra"); json.string(extra.text)
            if let link = nonEmpty("android.deep_link") { json.key("uri"); json.string(link) }
            if let id = campaign.apiID { json.key("cid"); json.string(id) }
            if let ch = o.channelID { json.key("ab_nc"); json.string(ch) }
            if let p = o.priority { json.key("p"); json.string(String(p)) }
            if let img = nonEmpty("android.image_url") { json.key("ab_iu"); json.string(img) }
            if let s = nonEmpty("android.summary_text") { json.key("s"); json.string(s) }
            json.endObject()
        }
        return PushPayload(platform: platform, serialized: json.text, fields: fields)
    }
}

/// The attachment type Braze sends for a rich-notification URL, from its extension
/// (`jpg` when the URL has none it knows).
public func attachmentType(_ url: String) -> String {
    let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
    let ext = (path as NSString).pathExtension.lowercased()
    switch ext {
    case "jpeg", "jpg": return "jpg"
    case "png", "gif", "mp4", "mp3", "m4a", "wav", "webp": return ext
    case "mov", "m4v": return "mp4"
    default: return "jpg"
    }
}
