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

    /// Renders every field against `document`, each in its own render. A failing field
    /// throws ``FieldError``.
    public func render(_ document: RenderContextDocument, options: RenderOptions? = nil) throws -> Result {
        let options = options ?? document.renderOptions()
        return try LiquidTemplate.withSession(document.value, options: options) { session in
            var out: [RenderedField] = []
            out.reserveCapacity(fields.count)
            var i = 0
            while i < fields.count {
                let result: MessageRenderResult
                do {
                    result = try session.renderMessage(fields[i].template)
                } catch let error as LiquidError {
                    throw FieldError(field: fields[i].name, error: error)
                }
                switch result {
                case .rendered(let text): out.append(RenderedField(name: fields[i].name, text: text))
                case .aborted(let reason): return .aborted(field: fields[i].name, reason: reason)
                }
                i += 1
            }
            return .rendered(out)
        }
    }
}
