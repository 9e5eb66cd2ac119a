/// `{% assign name = expression | filters %}`: sets a variable visible for the rest of the render.
struct AssignTag: LiquidTag {
    let name = "assign"

    struct Node: LiquidNode {
        let target: String
        let value: FilteredExpression
        func render(_ context: RenderContext) throws {
            try context.store(PropertyKey(target), try context.evaluate(value))
        }
        var isBlank: Bool { true }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        if parser.environment.errorMode != .strict2 {
            // The reference's `Assign::Syntax` (its strict mode too): the first run of name
            // characters followed by `=`; the value is parsed in the template's mode.
            let reader = RubyLax(tag.markup.utf8, offset: tag.markupOffset, environment: parser.environment)
            guard let (target, value) = reader.assignParts() else {
                throw LiquidError.Reason.syntax("Syntax Error in 'assign' - Valid syntax: assign [var] = [source]").at(tag.markupOffset)
            }
            let rest = Substring(reader.text(value))
            let expression = try parser.parseMarkup(rest, offset: tag.markupOffset + value.lowerBound) { try $0.filteredExpression() } lax: {
                try $0.filteredExpression($0.all)
            }
            return Node(target: reader.text(target), value: expression)
        }
        guard let eq = tag.markup.firstIndex(of: "=") else {
            throw LiquidError.Reason.syntax("assign needs 'name = value', got '\(tag.markup)'").at(tag.offset)
        }
        let target = tag.markup[..<eq].trimmingCharacters()
        guard validTargetName(Substring(target)), !isDigit(target.utf8.first ?? 0) else {
            throw LiquidError.Reason.syntax("invalid variable name '\(target)' in assign").at(tag.markupOffset)
        }
        let rest = tag.markup[tag.markup.index(after: eq)...]
        let restOffset = tag.markupOffset + tag.markup.utf8.distance(from: tag.markup.startIndex, to: rest.startIndex)
        let value = try parser.parseMarkup(rest, offset: restOffset) { try $0.filteredExpression() }
        return Node(target: target, value: value)
    }
}
