/// `{% echo expression | filters %}`: like `{{ }}`, usable inside `{% liquid %}`.
struct EchoTag: LiquidTag {
    let name = "echo"
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        if tag.markup.allSatisfy(\.isWhitespace) { return PlainOutputNode(expression: .literal(.nil)) }
        return try parser.parseMarkup(tag.markup, offset: tag.markupOffset) { try $0.outputNode() } lax: { reader -> any LiquidNode in
            let f = try reader.filteredExpression(reader.all)
            return f.filters.isEmpty ? PlainOutputNode(expression: f.expression) : OutputNode(expression: f)
        }
    }
}

/// `{% liquid %}`: one tag per line, no delimiters.
struct LiquidLinesTag: LiquidTag {
    let name = "liquid"
    struct Node: LiquidNode {
        let body: Body
        func render(_ context: RenderContext) throws { try body.render(context) }
        var isBlank: Bool { body.isBlank }
    }
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        Node(body: try parser.parseLiquidLines(tag.markup, offset: tag.markupOffset))
    }
}

/// `{% ifchanged %}...{% endifchanged %}`: renders the body when its output differs from the last time.
struct IfchangedTag: LiquidTag {
    let name = "ifchanged"
    struct Node: LiquidNode {
        let body: Body
        func render(_ context: RenderContext) throws {
            let text = try context.capture(body)
            if text != context.lastIfchanged {
                context.lastIfchanged = text
                context.write(text)
            }
        }
    }
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        let (body, _) = try parser.parseBlock("ifchanged", offset: tag.offset, until: ["endifchanged"])
        return Node(body: body)
    }
}
