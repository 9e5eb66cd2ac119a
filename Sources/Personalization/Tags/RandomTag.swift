import Foundation
import Liquid

/// `{% random %}`: a float from 0 up to 1 (not 1); `{% random 10 %}`: an integer from 0 to 9.
/// The bound may be a variable; one that is not a positive integer is an error.
struct RandomTag: LiquidTag {
    let name = "random"

    struct Node: LiquidNode {
        let bound: LiquidExpression?

        func render(_ context: RenderContext) throws {
            guard let bound else {
                context.write(LiquidValue.double(Double.random(in: 0..<1)).renderedString)
                return
            }
            let value = try context.evaluate(bound)
            guard case .int(let n) = value, n > 0 else {
                throw LiquidError.Reason.argument("random: the bound must be a positive integer, got \(value.jsonString)")
            }
            context.write(String(Int.random(in: 0..<n)))
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        guard !tag.markup.trimmingCharacters(in: .whitespaces).isEmpty else { return Node(bound: nil) }
        let bound = try parser.parseMarkup(tag.markup, offset: tag.markupOffset) { stream in
            let e = try stream.expression()
            try stream.expectEnd()
            return e
        }
        return Node(bound: bound)
    }
}
