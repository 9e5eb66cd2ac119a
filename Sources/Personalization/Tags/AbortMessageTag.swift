import Foundation
import Liquid

/// Thrown by `{% abort_message %}`: the whole message is not sent. Not an error: renders
/// report it as ``MessageRenderResult/aborted(reason:)``.
public struct MessageAborted: Error, Sendable, Equatable {
    /// The reason given (`{% abort_message('no points') %}`), if any.
    public var reason: String?
    /// Where the tag that aborted is (1-based), in the template ``templateName`` (a field, or a
    /// content block), when known.
    public var location: SourceLocation?
    /// The template the aborting tag is in.
    public var templateName: String?
    /// An abort with an optional reason and place.
    public init(reason: String?, location: SourceLocation? = nil, templateName: String? = nil) {
        self.reason = reason
        self.location = location
        self.templateName = templateName
    }
}

/// Where a tag is: its offset in its template's source, kept with the source (shared, not
/// copied) so that its line and column are worked out only when they are needed.
struct TagPlace: Sendable {
    let offset: Int
    let source: String
    let templateName: String?

    init(_ tag: TagToken, _ parser: LiquidParser) {
        offset = tag.offset
        source = parser.source
        templateName = parser.name
    }

    /// The tag's 1-based line and column.
    var location: SourceLocation { SourceLocation(utf8Offset: offset, in: source) }

    /// An abort at this tag.
    func abort(_ reason: String?) -> MessageAborted {
        MessageAborted(reason: reason, location: location, templateName: templateName)
    }
}

/// `{% abort_message %}`, `{% abort_message() %}`, `{% abort_message('reason') %}`.
struct AbortMessageTag: LiquidTag {
    let name = "abort_message"

    struct Node: LiquidNode {
        let reason: LiquidExpression?
        let place: TagPlace
        func render(_ context: RenderContext) throws {
            let text = try reason.map { try context.renderedText(try context.evaluate($0)) }
            throw place.abort(text)
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        var markup = tag.markup.trimmingCharacters(in: .whitespaces)
        if markup.hasPrefix("(") {
            guard markup.hasSuffix(")") else {
                throw LiquidError.Reason.syntax("abort_message: missing ')'").at(tag.offset)
            }
            markup = String(markup.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
        }
        if markup.isEmpty { return Node(reason: nil, place: TagPlace(tag, parser)) }
        let offset = tag.markupOffset
        let reason = try parser.parseMarkup(Substring(markup), offset: offset) { try $0.expression() }
        return Node(reason: reason, place: TagPlace(tag, parser))
    }
}
