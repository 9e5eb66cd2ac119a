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
        let (group, values) = try parser.parseMarkup(tag.markup, offset: tag.markupOffset, laxInStrict: true) { stream in
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
                repeat {
                    // A trailing comma is allowed (`{% cycle 'a', 'b', %}`).
                    if stream.isAtEnd && !values.isEmpty { break }
                    values.append(try stream.expression())
                } while stream.acceptComma()
            }
            return (group, values)
        } lax: { try $0.cycle() }
        // Without a group, cycles with the same literal values share a position, as in the
        // reference; a cycle with a variable among its values counts on its own (the
        // reference's key is its values' `to_s`, which holds each lookup's identity).
        var key = values.map { e -> String in
            switch e {
            case .literal(let v): return v.rubyInspect
            case .variable(let p): return p.text
            default: return "?"
            }
        }.joined(separator: ", ")
        if values.contains(where: { if case .literal = $0 { false } else { true } }) {
            key += "#\(parser.name ?? "")#\(tag.offset)"
        }
        return Node(group: group, key: key, values: values)
    }
}
