import Foundation
import Liquid

/// One `{% message_extras %}` key-value pair of a rendered message: data Braze attaches to the
/// message's send event (Currents' `message_extras`), not part of the message's text.
public struct MessageExtra: Sendable, Hashable {
    /// The key (leading and trailing whitespace removed).
    public var key: String
    /// The value, always a string (leading and trailing whitespace removed).
    public var value: String

    /// A pair.
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    /// All of Braze's keys and values together, at most (1 KB): past it they are cut.
    public static let maxBytes = 1024
}

/// `{% message_extras :key KEY :value VALUE %}`: a key-value pair for the send event, rendered
/// into the result beside the payload, never into the text. Key and value may hold Liquid
/// output (`{{ name }}`, `{{${language}}}`).
///
/// As Braze's docs describe the tag: whitespace around key and value is dropped; values are
/// strings; of a key given twice in one message the first value is kept; past 1 KB of keys and
/// values together the rest is cut. A tag written otherwise (no `:key`, no `:value`, text
/// before `:key`, `:value` before `:key`) adds nothing, and parsing it leaves a warning at the
/// tag (``LiquidTemplate/warnings``).
struct MessageExtrasTag: LiquidTag {
    let name = "message_extras"

    /// Where rendered pairs wait in ``RenderContext/registers`` until the host collects them
    /// after the render (see ``MessageTemplate/RenderedTexts/messageExtras``).
    static let register = "braze.messageExtras"

    /// A pair a render made, and where its tag is (to locate the warnings of collecting it).
    struct Pending: Sendable {
        var pair: MessageExtra
        var place: TagPlace
    }

    struct Node: LiquidNode {
        let key: LiquidTemplate
        let value: LiquidTemplate
        let place: TagPlace

        func render(_ context: RenderContext) throws {
            let key = try context.capture { try context.renderPartial(self.key, name: "message_extras") }
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let value = try context.capture { try context.renderPartial(self.value, name: "message_extras") }
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard !key.isEmpty else {
                context.warn("message_extras: the key rendered empty; the pair is not sent", at: nil)
                return
            }
            var pending = (context.registers[MessageExtrasTag.register] as? [Pending]) ?? []
            pending.append(Pending(pair: MessageExtra(key: key, value: value), place: place))
            context.registers[MessageExtrasTag.register] = pending
        }
    }

    /// A tag Braze would not pass on: parsed, warned about, and rendering nothing.
    struct Ignored: LiquidNode {
        func render(_ context: RenderContext) throws {}
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        let markup = tag.markup
        let bytes = Array(markup.utf8)
        // `:key` and `:value` outside `{{ }}`, each at the start or after whitespace.
        var keyAt: Int?, valueAt: Int?
        var i = 0, liquid = 0
        func word(_ w: String, at k: Int) -> Bool {
            let ww = Array(w.utf8)
            guard k + ww.count <= bytes.count, Array(bytes[k..<(k + ww.count)]) == ww else { return false }
            let before = k == 0 || isSpace(bytes[k - 1])
            let after = k + ww.count == bytes.count || isSpace(bytes[k + ww.count])
            return before && after
        }
        while i < bytes.count {
            if i + 1 < bytes.count, bytes[i] == UInt8(ascii: "{"), bytes[i + 1] == UInt8(ascii: "{") || bytes[i + 1] == UInt8(ascii: "%") { liquid += 1; i += 2; continue }
            if liquid > 0, i + 1 < bytes.count, bytes[i] == UInt8(ascii: "}") || bytes[i] == UInt8(ascii: "%"), bytes[i + 1] == UInt8(ascii: "}") { liquid -= 1; i += 2; continue }
            if liquid == 0 {
                if keyAt == nil, word(":key", at: i) { keyAt = i }
                else if valueAt == nil, word(":value", at: i) { valueAt = i }
            }
            i += 1
        }
        let leading = bytes.prefix { isSpace($0) }.count
        func ignored(_ why: String) -> any LiquidNode {
            parser.warn("message_extras: \(why); Braze passes nothing on for this tag (write {% message_extras :key name :value value %})", at: tag.offset)
            return Ignored()
        }
        guard let keyAt else { return ignored(valueAt == nil ? "no :key and :value" : "no :key") }
        guard let valueAt else { return ignored("no :value after :key") }
        guard valueAt > keyAt else { return ignored(":value comes before :key") }
        guard keyAt == leading else { return ignored("text before :key") }
        let keyStart = keyAt + 4, valueStart = valueAt + 6
        let keyText = String(decoding: bytes[keyStart..<valueAt], as: UTF8.self)
        let valueText = String(decoding: bytes[valueStart...], as: UTF8.self)
        if keyText.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return ignored("an empty key") }
        func compile(_ text: String, at offset: Int) throws -> LiquidTemplate {
            do { return try parser.environment.parse(text, name: "message_extras") } catch let e as LiquidError {
                // At its place in the field (the markup's offset plus the place in the text).
                let inner = e.location.map { loc -> Int in
                    var line = 1, k = 0
                    let t = Array(text.utf8)
                    while k < t.count, line < loc.line { if t[k] == 0x0A { line += 1 }; k += 1 }
                    return k + max(0, loc.column - 1)
                } ?? 0
                throw e.reason.at(tag.markupOffset + offset + inner)
            }
        }
        let key = try compile(keyText, at: keyStart)
        let value = try compile(valueText, at: valueStart)
        return Node(key: key, value: value, place: TagPlace(tag, parser))
    }

    func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }
}
