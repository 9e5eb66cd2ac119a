import Liquid

/// The fields of one message (title, body, key-value pairs...), each compiled once and
/// rendered separately: variables assigned in one field are not seen by another, as in the
/// Braze dashboard. An abort in any field aborts the whole message.
public struct MessageTemplate: Sendable {
    /// A compiled field.
    public struct Field: Sendable {
        /// The field's name (`title`, `body`, a key-value pair's key).
        public var name: String
        /// Its template.
        public var template: LiquidTemplate
        /// A field from an already compiled template.
        public init(name: String, template: LiquidTemplate) {
            self.name = name
            self.template = template
        }
    }

    /// A render error, with the field it happened in.
    public struct FieldError: Error, Sendable {
        /// The field's name.
        public var field: String
        /// The error.
        public var error: LiquidError
    }

    /// The fields, in order.
    public let fields: [Field]

    /// Compiles `fields` (name, Liquid source) with `environment`. A syntax error names the field.
    public init(fields: [(name: String, source: String)], environment: LiquidEnvironment) throws {
        self.fields = try fields.map { field in
            Field(name: field.name, template: try environment.parse(field.source, name: field.name))
        }
    }

    /// A message of already compiled fields.
    public init(fields: [Field]) { self.fields = fields }

    /// What rendering a message gives.
    public enum Result: Sendable, Equatable {
        /// Every field's text, in order.
        case rendered([RenderedField])
        /// A field aborted the message.
        case aborted(field: String, reason: String?)
    }

    /// One rendered field.
    public struct RenderedField: Sendable, Equatable {
        /// The field's name.
        public var name: String
        /// Its text.
        public var text: String
        /// A rendered field.
        public init(name: String, text: String) {
            self.name = name
            self.text = text
        }
    }

    /// Every field's text of one rendered message, one after another in one UTF-8 buffer: a
    /// message rendered this way makes no `String`, and the buffer is reused from message to
    /// message (``MessageTemplate/render(_:options:platform:into:)`` empties it first).
    public struct RenderedTexts: Sendable {
        /// The texts' UTF-8 bytes, back to back.
        public private(set) var bytes: [UInt8] = []
        /// Where each text ends in ``bytes``.
        private var ends: [Int] = []
        /// The render warnings of the fields (a failed Connected Content call, an unknown time
        /// zone): the field's index and the warning, located in the field's template or the
        /// content block it happened in.
        public private(set) var warnings: [(field: Int, warning: LiquidError)] = []
        /// The abort that ended the last message rendered into this buffer (its reason, and where
        /// the tag that aborted is), or `nil` when it rendered.
        public private(set) var abort: MessageAborted?
        /// The message's `{% message_extras %}` pairs, in order: a key's first value, keys and
        /// values at most ``MessageExtra/maxBytes`` together (each cut or duplicate is a warning).
        public private(set) var messageExtras: [MessageExtra] = []
        /// The bytes of ``messageExtras``' keys and values.
        private var messageExtrasBytes = 0

        /// An empty buffer.
        public init() {}

        /// The number of texts.
        public var count: Int { ends.count }

        /// The range of text `i` in ``bytes``.
        public func range(_ i: Int) -> Range<Int> { (i == 0 ? 0 : ends[i - 1])..<ends[i] }

        /// Text `i` as a string.
        public func text(_ i: Int) -> String { String(decoding: bytes[range(i)], as: UTF8.self) }

        /// Calls `body` with the UTF-8 bytes of text `i`.
        public func withUTF8<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            let r = range(i)
            return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[r])) }
        }

        mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            if !warnings.isEmpty { warnings.removeAll() }
            if abort != nil { abort = nil }
            if !messageExtras.isEmpty { messageExtras.removeAll(); messageExtrasBytes = 0 }
        }

        mutating func aborted(_ abort: MessageAborted) { self.abort = abort }

        mutating func render(_ template: LiquidTemplate, in session: RenderSession) throws {
            try session.render(template, appendingTo: &bytes)
            let field = ends.count
            ends.append(bytes.count)
            if session.hasWarnings { warnings += session.warnings.map { (field, $0) } }
            if session.hasRegisters, let pending = session.register(MessageExtrasTag.register) as? [MessageExtrasTag.Pending] {
                collect(pending, field: field)
            }
        }

        /// Adds a field's message extras: a key already given keeps its first value, and past
        /// ``MessageExtra/maxBytes`` of keys and values the rest is cut (as Braze does), each
        /// with a warning at its tag.
        private mutating func collect(_ pending: [MessageExtrasTag.Pending], field: Int) {
            for p in pending {
                func warn(_ message: String) {
                    warnings.append((field, LiquidError(.custom("message_extras: " + message), location: p.place.location, templateName: p.place.templateName)))
                }
                if messageExtras.contains(where: { $0.key == p.pair.key }) {
                    warn("the key '\(p.pair.key)' is given again; Braze keeps its first value")
                    continue
                }
                let keyBytes = p.pair.key.utf8.count
                let size = keyBytes + p.pair.value.utf8.count
                if messageExtrasBytes + size <= MessageExtra.maxBytes {
                    messageExtras.append(p.pair)
                    messageExtrasBytes += size
                    continue
                }
                let room = MessageExtra.maxBytes - messageExtrasBytes - keyBytes
                guard room > 0 else {
                    warn("past \(MessageExtra.maxBytes) bytes of keys and values, '\(p.pair.key)' is cut off entirely")
                    continue
                }
                // The value cut at a character boundary within the room left.
                var cut = ""
                var used = 0
                for ch in p.pair.value {
                    let n = ch.utf8.count
                    if used + n > room { break }
                    cut.append(ch)
                    used += n
                }
                messageExtras.append(MessageExtra(key: p.pair.key, value: cut))
                messageExtrasBytes += keyBytes + used
                warn("past \(MessageExtra.maxBytes) bytes of keys and values, the value of '\(p.pair.key)' is cut to \(used) bytes")
            }
        }
    }

    /// Renders every field against `document` into `texts` (emptied first), each in its own
    /// render. Returns `nil` when every field rendered, or the field that aborted the message
    /// and why (`texts` then holds the fields before it). A failing field throws ``FieldError``.
    ///
    /// `platform` (`ios`, `android`) is the platform the message is for: what
    /// `targeted_device.${...}` reads the recipient's device of.
    public func render(_ document: RenderContextDocument, options: RenderOptions? = nil, platform: String? = nil,
                       into texts: inout RenderedTexts) throws -> (field: String, reason: String?)? {
        try render(document, options: options, sessionInfo: BrazeSession.info(platform: platform), into: &texts)
    }

    /// ``render(_:options:platform:into:)`` with the session's information made beforehand
    /// (``BrazeSession/info(platform:)``): what a caller rendering many messages for one
    /// platform passes each time.
    public func render(_ document: RenderContextDocument, options: RenderOptions? = nil, sessionInfo: [String: any Sendable],
                       into texts: inout RenderedTexts) throws -> (field: String, reason: String?)? {
        texts.removeAll()
        let options = options ?? document.renderOptions()
        return try LiquidTemplate.withSession(document.value, options: options, sessionInfo: sessionInfo) { session in
            var i = 0
            while i < fields.count {
                do {
                    try texts.render(fields[i].template, in: session)
                } catch let abort as MessageAborted {
                    texts.aborted(abort)
                    return (fields[i].name, abort.reason)
                } catch let error as LiquidError {
                    throw FieldError(field: fields[i].name, error: error)
                }
                i += 1
            }
            return nil
        }
    }

    /// Renders every field against `document` (for `platform`, when given), each in its own
    /// render. A failing field throws ``FieldError``.
    public func render(_ document: RenderContextDocument, options: RenderOptions? = nil, platform: String? = nil) throws -> Result {
        var texts = RenderedTexts()
        if let (field, reason) = try render(document, options: options, platform: platform, into: &texts) {
            return .aborted(field: field, reason: reason)
        }
        return .rendered(fields.indices.map { RenderedField(name: fields[$0].name, text: texts.text($0)) })
    }
}
