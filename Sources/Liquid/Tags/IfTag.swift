/// `{% if %}`/`{% elsif %}`/`{% else %}`/`{% endif %}`, and `unless` (``UnlessTag``).
struct IfTag: LiquidTag {
    let name = "if"

    struct Node: LiquidNode {
        /// Condition and body pairs; `nil` condition is the `else` branch.
        let branches: [IfBranch]
        let negateFirst: Bool
        let isBlank: Bool

        init(branches: [(Condition?, Body)], negateFirst: Bool, isBlank: Bool) {
            self.branches = branches.map { IfBranch(condition: $0.0, body: $0.1) }
            self.negateFirst = negateFirst
            self.isBlank = isBlank
        }

        func render(_ context: RenderContext) throws {
            var index = 0
            while index < branches.count {
                if try branches[index].render(context, negate: index == 0 && negateFirst) { return }
                index += 1
            }
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        try Self.parseBranches(tag, parser: parser, endName: "endif", negateFirst: false)
    }

    static func parseBranches(_ tag: TagToken, parser: LiquidParser, endName: String, negateFirst: Bool) throws -> Node {
        var branches: [(Condition?, Body)] = []
        var current: Condition? = try parser.parseMarkup(tag.markup, offset: tag.markupOffset) { try $0.condition() }
        // Blocks after the first `else` are parsed but never rendered, as in the reference.
        var collecting = true
        while true {
            let (body, end) = try parser.parseBlock(tag.name, offset: tag.offset, until: ["elsif", "else", endName])
            if collecting {
                branches.append((current, body))
                if current == nil { collecting = false }
            }
            switch end.name {
            case "elsif":
                if collecting { current = try parser.parseMarkup(end.markup, offset: end.markupOffset) { try $0.condition() } }
            case "else":
                current = nil
            default:
                let blank = branches.allSatisfy { $0.1.isBlank }
                if blank { branches = branches.map { ($0.0, $0.1.removingBlankText()) } }
                return Node(branches: branches, negateFirst: negateFirst, isBlank: blank)
            }
        }
    }
}

/// `{% unless %}`: `if` with the first condition negated.
struct UnlessTag: LiquidTag {
    let name = "unless"
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        try IfTag.parseBranches(tag, parser: parser, endName: "endunless", negateFirst: true)
    }
}

/// A compiled `if`/`elsif`/`else` branch: a class, so that rendering reads its parts in place.
final class IfBranch: Sendable {
    /// `nil` for `else`.
    let condition: Condition?
    let body: Body

    init(condition: Condition?, body: Body) {
        self.condition = condition
        self.body = body
    }

    /// Renders the body when the condition holds (`negate` for `unless`); returns whether it
    /// did. Not inlined: inside, `self` is borrowed and so are its condition and body.
    @inline(never)
    func render(_ context: RenderContext, negate: Bool) throws -> Bool {
        switch condition {
        case .none:
            try body.render(context)
            return true
        case .some(let c):
            if try context.evaluate(c) != negate {
                try body.render(context)
                return true
            }
            return false
        }
    }
}
