/// `{% case x %}{% when a, b or c %}...{% else %}...{% endcase %}`. As in the reference,
/// every matching `when` renders, and `else` renders when no `when` before it matched.
struct CaseTag: LiquidTag {
    let name = "case"

    /// A class: see ``ForTag/Node``.
    final class Node: LiquidNode {
        let subject: LiquidExpression
        let branches: [CaseBranch]
        let isBlank: Bool

        init(subject: LiquidExpression, branches: [CaseBranch], isBlank: Bool) {
            (self.subject, self.branches, self.isBlank) = (subject, branches, isBlank)
        }

        func render(_ context: RenderContext) throws {
            let value = try context.evaluate(subject)
            var matched = false
            var b = 0
            while b < branches.count {
                try branches[b].render(value, &matched, context)
                if context.interrupt != nil { return }
                b += 1
            }
        }
    }

    static let terminators = ["when", "else", "endcase"]

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        let subject = try parser.parseMarkup(tag.markup, offset: tag.markupOffset, laxInStrict: true) { try $0.expression() } lax: { try $0.caseSubject() }
        var branches: [CaseBranch] = []
        branches.reserveCapacity(4)
        // Whatever stands before the first `when` is ignored.
        var (_, end) = try parser.parseBlock("case", offset: tag.offset, until: Self.terminators)
        while end.name != "endcase" {
            let (body, next) = try parser.parseBlock("case", offset: tag.offset, until: Self.terminators)
            if end.name == "when" {
                let candidates = try parser.parseMarkup(end.markup, offset: end.markupOffset, laxInStrict: true) { stream -> [LiquidExpression] in
                    var list = [try stream.expression()]
                    while stream.acceptComma() || stream.accept(word: "or") { list.append(try stream.expression()) }
                    return list
                } lax: { try $0.whenValues() }
                branches.append(CaseBranch(candidates: candidates, body: body))
            } else {
                branches.append(CaseBranch(candidates: nil, body: body))
            }
            end = next
        }
        let blank = branches.allSatisfy { $0.body.isBlank }
        if blank { branches = branches.map { CaseBranch(candidates: $0.candidates, body: $0.body.removingBlankText()) } }
        return Node(subject: subject, branches: branches, isBlank: blank)
    }
}

/// A compiled `when` or `else` branch: a class, so that rendering reads its parts in place.
final class CaseBranch: Sendable {
    /// The `when` values; `nil` for `else`.
    let candidates: [LiquidExpression]?
    let body: Body

    init(candidates: [LiquidExpression]?, body: Body) {
        self.candidates = candidates
        self.body = body
    }

    func render(_ value: LiquidValue, _ matched: inout Bool, _ context: RenderContext) throws {
        guard let candidates else {
            if !matched { try body.render(context) }
            return
        }
        // Each value of a `when` is its own branch in the reference.
        var c = 0
        while c < candidates.count {
            let matches: Bool
            if let literal = RenderContext.methodLiteral(candidates[c]) {
                matches = value.matches(literal)  // `when empty`: `empty?` asked of the value
            } else {
                matches = value.liquidEquals(try context.evaluate(candidates[c]))
            }
            if matches {
                matched = true
                try body.render(context)
                if context.interrupt != nil { return }
            }
            c += 1
        }
    }
}
