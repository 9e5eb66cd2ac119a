import Foundation
import Liquid

/// Thrown by `{% abort_message %}`: the whole message is not sent. Not an error: renders
/// report it as ``MessageRenderResult/aborted(reason:)``.
public struct MessageAborted: Error, Sendable, Equatable {
    /// The reason given (`{% abort_message('no points') %}`), if any.
    public var reason: String?
    /// An abort with an optional reason.
    public init(reason: String?) { self.reason = reason }
}

/// `{% abort_message %}`, `{% abort_message() %}`, `{% abort_message('reason') %}`.
struct AbortMessageTag: LiquidTag {
    let name = "abort_message"

    struct Node: LiquidNode {
        let reason: LiquidExpression?
        func render(_ context: RenderContext) throws {
            let text = try reason.map { try context.renderedText(try context.evaluate($0)) }
            throw MessageAborted(reason: text)
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
        if markup.isEmpty { return Node(reason: nil) }
        let offset = tag.markupOffset
        let reason = try parser.parseMarkup(Substring(markup), offset: offset) { try $0.expression() }
        return Node(reason: reason)
    }
}
