/// `{% cycle 'a', 'b' %}` and `{% cycle group: 'a', 'b' %}`: outputs the next value each time.
struct CycleTag: LiquidTag {
    let name = "cycle"

    struct Node: LiquidNode {
        let group: LiquidExpression?
        let key: String
        let values: [LiquidExpression]
        func render(_ context: RenderContext) throws {
            let name = try group.map { try context.renderedText(try context.evaluate($0)) } ?? key
            let position = context.cycles[name] ?? 0
            if position < values.count { try context.emit(try context.evaluate(values[position])) }
            context.cycles[name] = position + 1 >= values.count ? 0 : position + 1
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        try parser.parseMarkup(tag.markup, offset: tag.markupOffset) { stream in
            var group: LiquidExpression?
            let first = try stream.expression()
            var values: [LiquidExpression] = []
            if stream.acceptColon() {
                group = first
            } else {
                values.append(first)
                guard stream.acceptComma() || stream.isAtEnd else { throw stream.unexpected("',' or end of markup") }
            }
            if !stream.isAtEnd || values.isEmpty {
                repeat { values.append(try stream.expression()) } while stream.acceptComma()
            }
            // Without a group, cycles with the same values share a position, as in the reference.
            let key = values.map { e -> String in
                switch e {
                case .literal(let v): return v.rubyInspect
                case .variable(let p): return p.text
                default: return "?"
                }
            }.joined(separator: ", ")
            return Node(group: group, key: key, values: values)
        }
    }
}
