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
        guard let eq = tag.markup.firstIndex(of: "=") else {
            throw LiquidError.Reason.syntax("assign needs 'name = value', got '\(tag.markup)'").at(tag.offset)
        }
        let target = tag.markup[..<eq].trimmingCharacters()
        guard validTargetName(Substring(target)) else {
            throw LiquidError.Reason.syntax("invalid variable name '\(target)' in assign").at(tag.markupOffset)
        }
        let rest = tag.markup[tag.markup.index(after: eq)...]
        let restOffset = tag.markupOffset + tag.markup.utf8.distance(from: tag.markup.startIndex, to: rest.startIndex)
        let value = try parser.parseMarkup(rest, offset: restOffset) { try $0.filteredExpression() }
        return Node(target: target, value: value)
    }
}
