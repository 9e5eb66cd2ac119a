import Foundation
import Liquid

/// `{% promotion('list') %}`: a promotion code from the list, unique to the recipient (see
/// ``PromotionCodeLedger``). The same recipient of the same send gets the same code in every
/// field and on every platform. A list with no code left aborts the message (Braze does not
/// send it); a list that does not exist is an error.
struct PromotionTag: LiquidTag {
    let name = "promotion"
    let source: (any PromotionCodeSource)?

    struct Node: LiquidNode {
        let list: LiquidExpression
        let source: (any PromotionCodeSource)?
        let place: TagPlace

        func render(_ context: RenderContext) throws {
            let name = try context.renderedText(try context.evaluate(list))
            guard let source else {
                throw LiquidError.Reason.custom("promotion: no promotion code lists are configured (a PromotionCodes/ folder beside Templates/)")
            }
            let code: String?
            do { code = try source.code(for: PromotionCodeAssignment(list: name, document: context.renderData)) } catch let error as PromotionCodeError {
                throw LiquidError.Reason.custom("promotion: \(error)")
            }
            guard let code else {
                throw place.abort("promotion code list '\(name)' has no codes left")
            }
            context.write(code)
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        var markup = tag.markup.trimmingCharacters(in: .whitespaces)
        var offset = tag.markupOffset + (tag.markup.utf8.count - tag.markup.drop(while: { $0 == " " || $0 == "\t" }).utf8.count)
        if markup.hasPrefix("(") {
            guard markup.hasSuffix(")") else {
                throw LiquidError.Reason.syntax("promotion: missing ')' (write {% promotion('list_name') %})").at(tag.offset)
            }
            markup = String(markup.dropFirst().dropLast())
            offset += 1
        }
        guard !markup.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw LiquidError.Reason.syntax("promotion needs a code list's snippet: {% promotion('list_name') %}").at(tag.offset)
        }
        let list = try parser.parseMarkup(Substring(markup), offset: offset) { stream in
            let e = try stream.expression()
            try stream.expectEnd()
            return e
        }
        return Node(list: list, source: source, place: TagPlace(tag, parser))
    }
}
