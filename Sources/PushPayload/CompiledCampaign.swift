import Foundation
import Liquid
import Personalization

/// A campaign with every Liquid field compiled once, ready to render per recipient from
/// many threads.
public struct CompiledCampaign: Sendable {
    /// The campaign.
    public private(set) var campaign: Campaign
    let fields: [(field: CampaignField, template: LiquidTemplate)]
    let fileText: String?
    /// The dialect the campaign was compiled with (its content blocks, Connected Content, catalogs).
    public let dialect: BrazeDialect
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
        func message(for platform: Platform) -> (MessageTemplate, [CampaignField], PayloadPlan) {
            let own = compiled.filter { Self.applies($0.0, to: platform) }
            return (MessageTemplate(fields: own.map { .init(name: $0.0.name, template: $0.1) }), own.map(\.0), PayloadPlan(own.map(\.0)))
        }
        self.ios = message(for: .ios)
        self.android = message(for: .android)
    }

    /// What the Braze dialect knows of a message for each platform (made once).
    private let iosSession = BrazeSession.info(platform: Platform.ios.rawValue)
    private let androidSession = BrazeSession.info(platform: Platform.android.rawValue)

    /// Each platform's message, the campaign fields behind its fields (in order), and where
    /// each payload part comes from among them.
    let ios: (message: MessageTemplate, fields: [CampaignField], plan: PayloadPlan)
    let android: (message: MessageTemplate, fields: [CampaignField], plan: PayloadPlan)

    /// The positions of a platform's payload parts among its rendered fields, found once at
    /// compile time (a payload is then written without looking fields up by name).
    struct PayloadPlan: Sendable {
        var title: Int?, subtitle: Int?, body: Int?
        var iosBadge: Int?, iosImage: Int?, iosDeepLink: Int?
        var androidImage: Int?, androidDeepLink: Int?, androidSummary: Int?
        /// Key-value pairs in order: field position, key and field name.
        var keyValues: [(index: Int, key: String, name: String)] = []

        init(_ fields: [CampaignField]) {
            for (i, f) in fields.enumerated() {
                switch f.name {
                case "title": title = i
                case "subtitle": subtitle = i
                case "body": body = i
                case "ios.badge": iosBadge = i
                case "ios.image_url": iosImage = i
                case "ios.deep_link": iosDeepLink = i
                case "android.image_url": androidImage = i
                case "android.deep_link": androidDeepLink = i
                case "android.summary_text": androidSummary = i
                default: if f.name.hasPrefix("key_value_pairs.") { keyValues.append((i, f.key, f.name)) }
                }
            }
        }
    }

    /// The campaign with attributes of one send added to `campaign.${...}` and `canvas.${...}`
    /// (`dispatch_id`, `message_api_id`, `variant_name`...), over the campaign file's.
    public func with(campaignInfo: [(String, LiquidValue)], canvasInfo: [(String, LiquidValue)]) -> CompiledCampaign {
        var copy = self
        for (k, v) in campaignInfo { copy.campaign.campaignInfo[k] = v }
        for (k, v) in canvasInfo { copy.campaign.canvasInfo[k] = v }
        return copy
    }

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
            guard attr.isProfileAttribute else { return false }
            return !profiles.contains { profile in !(attr.value(in: profile) ?? .nil).isNil }
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

    /// What compiling found that renders, but probably not as meant: each use of a filter the
    /// dialect does not have (lax mode passes the value through unchanged), at its position in
    /// the campaign file.
    public var compileWarnings: [CampaignDiagnostic] {
        fields.flatMap { field, template in
            template.unknownFilterUses.map { use in
                warning(use, field: field, detail: " (the value passes through unchanged)")
            }
        }
    }

    /// `error`, noticed in `field`, as a warning at its position in the campaign file (or, in a
    /// content block, with the block's file, line and column).
    func warning(_ error: LiquidError, field: CampaignField, detail: String = "") -> CampaignDiagnostic {
        let (location, message) = located(error, in: field)
        return CampaignDiagnostic(file: campaign.file, location: location, field: field.name, message: message + detail)
    }

    /// Where `error`, from `field`'s template, is in the campaign file, and its message. Inside
    /// a content block the position is the block's own: the message names the block's file
    /// (Templates/content_blocks/NAME.liquid), line and column, and the partials that led there.
    func located(_ error: LiquidError, in field: CampaignField) -> (SourceLocation?, String) {
        let location = error.templateName == field.name ? error.location.map { field.fileLocation(of: $0, fileText: fileText) } : nil
        var message = error.message
        if let name = error.templateName, name != field.name, let at = error.location {
            message += " (at \(name)\(name.hasPrefix("content_blocks/") ? ".liquid" : ""):\(at.line):\(at.column))"
        }
        if !error.trace.isEmpty { message += " (in \(error.trace.joined(separator: " > ")))" }
        return (location, message)
    }

    /// The render warnings in `texts` (a platform's fields, rendered), located in the file.
    public func warnings(in texts: MessageTemplate.RenderedTexts, platform: Platform) -> [CampaignDiagnostic] {
        let messageFields = platform == .ios ? ios.fields : android.fields
        return texts.warnings.map { warning($0.warning, field: messageFields[$0.field]) }
    }

    /// Renders the payload for one recipient. Every field is its own render.
    public func render(_ document: RenderContextDocument, platform: Platform) -> PayloadResult {
        var warnings: [CampaignDiagnostic] = []
        return render(document, platform: platform, warnings: &warnings)
    }

    /// Renders the payload for one recipient, as ``render(_:platform:)`` does, and adds what
    /// the render warned about (a Connected Content call that failed, an unknown time zone)
    /// to `warnings`, at positions in the campaign file.
    public func render(_ document: RenderContextDocument, platform: Platform, warnings: inout [CampaignDiagnostic]) -> PayloadResult {
        let preview = self.preview(document, platform: platform)
        warnings += preview.warnings
        return preview.result
    }

    /// Renders the payload for one recipient as ``render(_:platform:warnings:)`` does, and keeps
    /// what a preview shows beside the result: the fields' texts also when the payload cannot be
    /// sent (over its size cap, a bad badge), the payload's size, the warnings, and where an
    /// abort happened.
    public func preview(_ document: RenderContextDocument, platform: Platform) -> PayloadPreview {
        var texts = MessageTemplate.RenderedTexts()
        let messageFields = platform == .ios ? ios.fields : android.fields
        var preview = PayloadPreview(result: .failed(.invalidContext("not rendered")))
        func finish(_ result: PayloadResult) -> PayloadPreview {
            preview.result = result
            preview.fields = (0..<texts.count).map { RenderedCampaignField(name: messageFields[$0].name, key: messageFields[$0].key, text: texts.text($0)) }
            preview.warnings = texts.warnings.isEmpty ? [] : warnings(in: texts, platform: platform)
            preview.messageExtras = texts.messageExtras
            if case .aborted(_, let fieldName)? = Optional(result), let abort = texts.abort,
               let field = messageFields.first(where: { $0.name == fieldName }), let at = abort.location {
                if abort.templateName == field.name {
                    let loc = field.fileLocation(of: at, fileText: fileText)
                    preview.abortPlace = "\(campaign.file):\(loc.line):\(loc.column)"
                } else if let name = abort.templateName {
                    preview.abortPlace = "\(name)\(name.hasPrefix("content_blocks/") ? ".liquid" : ""):\(at.line):\(at.column) (from \(field.name) in \(campaign.file))"
                }
            }
            return preview
        }
        if let ended = renderTexts(document, platform: platform, into: &texts) { return finish(ended) }
        var json = JSONTextWriter(capacity: 512)
        if let problem = writePayload(texts, platform: platform, into: &json) {
            if case .failed(.payloadTooLarge(let bytes, _, _, _)) = problem { preview.payloadBytes = bytes }
            return finish(problem)
        }
        preview.payloadBytes = json.bytes.count
        let fields = messageFields.indices.map { RenderedCampaignField(name: messageFields[$0].name, key: messageFields[$0].key, text: texts.text($0)) }
        // Codes the payload shows are recorded durably before it is handed back to be sent.
        if let problem = makeDurable() { return finish(problem) }
        return finish(.rendered(PushPayload(platform: platform, serialized: json.text, fields: fields, messageExtras: texts.messageExtras)))
    }

    /// Makes the promotion codes handed out so far durable (see `PromotionCodeSource.sync()`):
    /// `nil` when they are (or none were handed out), the failure otherwise. Batches call it
    /// once per chunk, before writing the chunk's payloads.
    public func makeDurable() -> PayloadResult? {
        guard let codes = dialect.promotionCodes else { return nil }
        do { try codes.sync() } catch {
            return .failed(.notDurable("\(error)"))
        }
        return nil
    }

    /// Renders the payload for one recipient straight into `json` as JSON text (the text
    /// ``render(_:platform:)`` would give). Returns `nil` when it rendered, and the result
    /// (aborted or failed, `json` left as it was) otherwise.
    public func renderPayload(_ document: RenderContextDocument, platform: Platform, into json: inout JSONTextWriter) -> PayloadResult? {
        var texts = MessageTemplate.RenderedTexts()
        return renderPayload(document, platform: platform, into: &json, texts: &texts)
    }

    /// ``renderPayload(_:platform:into:)`` with the fields' texts rendered into `texts`, a
    /// buffer the caller keeps from one recipient to the next (no allocation once it is grown).
    func renderPayload(_ document: RenderContextDocument, platform: Platform, into json: inout JSONTextWriter,
                       texts: inout MessageTemplate.RenderedTexts) -> PayloadResult? {
        if let ended = renderTexts(document, platform: platform, into: &texts) { return ended }
        return writePayload(texts, platform: platform, into: &json)
    }

    private static let campaignKey = PropertyKey("campaign")
    private static let canvasKey = PropertyKey("canvas")

    /// The document a message renders with: the campaign file's `campaign:` and `canvas:`
    /// under the document's own `campaign` and `canvas` keys (a send's `dispatch_id`, a
    /// Canvas variant: the document's win).
    func sendDocument(_ document: RenderContextDocument) -> RenderContextDocument {
        let info = campaign.campaignInfo, canvas = campaign.canvasInfo
        if info.isEmpty && canvas.isEmpty { return document }
        guard case .object(let o) = document.value else { return document }
        var doc = document
        func merge(_ key: PropertyKey, _ file: LiquidObject) {
            switch o[key] {
            case nil, .nil?: doc.set(key.name, .object(file))
            case .object(let given)?:
                var merged = file
                for (k, v) in given { merged[k] = v }
                doc.set(key.name, .object(merged))
            default: break
            }
        }
        if !info.isEmpty { merge(Self.campaignKey, info) }
        if !canvas.isEmpty { merge(Self.canvasKey, canvas) }
        return doc
    }

    /// Renders the platform's fields into `texts`; `nil` when they all rendered, or the
    /// result that ends the message there (an abort, a failure).
    private func renderTexts(_ document: RenderContextDocument, platform: Platform, into texts: inout MessageTemplate.RenderedTexts) -> PayloadResult? {
        let doc = sendDocument(document)
        do {
            let aborted = platform == .ios ? try ios.message.render(doc, sessionInfo: iosSession, into: &texts)
                                           : try android.message.render(doc, sessionInfo: androidSession, into: &texts)
            if let (field, reason) = aborted { return .aborted(reason: reason, field: field) }
            return nil
        } catch let failure as MessageTemplate.FieldError {
            let error = failure.error
            let field = fields.first { $0.field.name == failure.field }!.field
            let (location, message) = located(error, in: field)
            return .failed(.liquid(field: field.name, file: campaign.file, location: location, message: message))
        } catch {
            return .failed(.liquid(field: "", file: campaign.file, location: nil, message: "\(error)"))
        }
    }

    /// Writes the payload of rendered `texts` into `json`; a problem (a bad badge, a bad
    /// `$json:` value, a payload over the platform's limit) is returned instead, with `json`
    /// left as it was.
    private func writePayload(_ texts: MessageTemplate.RenderedTexts, platform: Platform, into json: inout JSONTextWriter) -> PayloadResult? {
        let mark = json.mark
        let start = json.bytes.count
        do {
            try build(platform: platform, texts: texts, into: &json)
        } catch let error as PayloadError {
            json.rewind(to: mark)
            return .failed(error)
        } catch {
            json.rewind(to: mark)
            return .failed(.invalidContext("\(error)"))
        }
        let bytes = json.bytes.count - start
        if bytes > platform.sizeLimit {
            json.rewind(to: mark)
            let messageFields = platform == .ios ? ios.fields : android.fields
            let largest = messageFields.indices.map { (messageFields[$0].name, texts.range($0).count) }
                .sorted { $0.1 > $1.1 }.prefix(3)
                .map { "\($0.0) (\($0.1) bytes)" }
            return .failed(.payloadTooLarge(bytes: bytes, limit: platform.sizeLimit, largestFields: largest, file: campaign.file))
        }
        return nil
    }

    /// The prefix of a key-value pair's text that makes the rest a JSON value.
    private static let jsonValuePrefix = Array("$json:".utf8)

    /// Writes a key-value pair's value: `$json:` text parsed and written as JSON, any other
    /// text as a string.
    func writeKeyValue(_ texts: MessageTemplate.RenderedTexts, _ index: Int, field name: String, into json: inout JSONTextWriter) throws {
        let prefix = Self.jsonValuePrefix
        let isJSON = texts.withUTF8(index) { $0.starts(with: prefix) }
        guard isJSON else {
            texts.withUTF8(index) { json.string(utf8: $0) }
            return
        }
        let range = texts.range(index)
        var parser = JSONValueParser(buffer: texts.bytes, range: (range.lowerBound + prefix.count)..<range.upperBound)
        do { json.value(try parser.parse()) } catch let e as JSONValueParser.SyntaxError {
            let field = fields.first { $0.field.name == name }?.field
            throw PayloadError.invalidJSONValue(field: name, file: campaign.file, location: field.map { SourceLocation(line: $0.line, column: $0.column) },
                                                message: "\(e.line):\(e.column): \(e.message)")
        }
    }

    /// The payload, written straight as JSON text (no intermediate object): the same text
    /// `PushPayload(platform:json:fields:)` gives for the object of these keys in this order.
    func build(platform: Platform, texts: MessageTemplate.RenderedTexts, into json: inout JSONTextWriter) throws {
        let plan = platform == .ios ? ios.plan : android.plan
        func text(_ index: Int?) -> String? { index.map { texts.text($0) } }
        func nonEmpty(_ index: Int?) -> String? {
            text(index).flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        }
        /// Writes text `index` (or "" when the field is missing) as a JSON string.
        func string(_ index: Int?, _ json: inout JSONTextWriter) {
            if let index { texts.withUTF8(index) { json.string(utf8: $0) } } else { json.string("") }
        }
        /// The key-value pairs, as members of the object being written.
        func writeKeyValues(_ json: inout JSONTextWriter) throws {
            for kv in plan.keyValues {
                json.key(kv.key)
                try writeKeyValue(texts, kv.index, field: kv.name, into: &json)
            }
        }
        switch platform {
        case .ios:
            let o = campaign.ios
            var badge: Int?
            if let badgeText = nonEmpty(plan.iosBadge) {
                guard let b = Int(badgeText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    let f = o.badge!
                    throw PayloadError.badgeNotInteger(rendered: badgeText, file: campaign.file, location: SourceLocation(line: f.line, column: f.column))
                }
                badge = b
            }
            let image = nonEmpty(plan.iosImage)
            json.beginObject()
            json.key("aps")
            json.beginObject()
            json.key("alert")
            json.beginObject()
            json.key("title"); string(plan.title, &json)
            if let s = plan.subtitle, campaign.subtitle != nil { json.key("subtitle"); string(s, &json) }
            json.key("body"); string(plan.body, &json)
            json.endObject()
            if let c = o.category { json.key("category"); json.string(c) }
            if let s = o.sound { json.key("sound"); json.string(s) }
            if let badge { json.key("badge"); json.value(.int(badge)) }
            if let t = o.threadID { json.key("thread-id"); json.string(t) }
            if let l = o.interruptionLevel { json.key("interruption-level"); json.string(l.rawValue) }
            if o.mutableContent || image != nil { json.key("mutable-content"); json.value(.int(1)) }
            if o.contentAvailable { json.key("content-available"); json.value(.int(1)) }
            json.endObject()
            // Braze's own keys: the campaign's id ("c") and the attachment; none without either
            // (a campaign without campaign.api_id sends no null id).
            let apiID = campaign.apiID
            if apiID != nil || image != nil {
                json.key("ab")
                json.beginObject()
                if let id = apiID { json.key("c"); json.string(id) }
                if let image {
                    json.key("att")
                    json.beginObject()
                    json.key("url"); json.string(image)
                    json.key("type"); json.string(attachmentType(image))
                    json.endObject()
                }
                json.endObject()
            }
            if let link = nonEmpty(plan.iosDeepLink) { json.key("ab_uri"); json.string(link) }
            try writeKeyValues(&json)
            json.endObject()
        case .android:
            var extra = JSONTextWriter()
            extra.beginObject()
            try writeKeyValues(&extra)
            extra.endObject()
            let o = campaign.android
            json.beginObject()
            json.key("_ab"); json.string("true")
            json.key("t"); string(plan.title, &json)
            json.key("a"); string(plan.body, &json)
            json.key("extra"); json.string(extra.text)
            if let link = nonEmpty(plan.androidDeepLink) { json.key("uri"); json.string(link) }
            if let id = campaign.apiID { json.key("cid"); json.string(id) }
            if let ch = o.channelID { json.key("ab_nc"); json.string(ch) }
            if let p = o.priority { json.key("p"); json.string(String(p)) }
            if let img = nonEmpty(plan.androidImage) { json.key("ab_iu"); json.string(img) }
            if let s = nonEmpty(plan.androidSummary) { json.key("s"); json.string(s) }
            json.endObject()
        }
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
