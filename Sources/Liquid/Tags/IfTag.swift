/// `{% if %}`/`{% elsif %}`/`{% else %}`/`{% endif %}`, and `unless` (``UnlessTag``).
struct IfTag: LiquidTag {
    let name = "if"

    struct Node: LiquidNode {
        /// Condition and body pairs; `nil` condition is the `else` branch.
        let branches: [IfBranch]
        let negateFirst: Bool
        let isBlank: Bool

        init(branches: [IfBranch], negateFirst: Bool, isBlank: Bool) {
            self.branches = branches
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
        try Self.parseBranches(tag, parser: parser, terminators: Self.ifTerminators, negateFirst: false)
    }

    static let ifTerminators = ["elsif", "else", "endif"]
    static let unlessTerminators = ["elsif", "else", "endunless"]

    /// A condition's markup, parsed as the reference parses it in the template's mode. In lax
    /// mode an operator written against the value before it (`a!=b`, `a== b`) is read as
    /// the reference's lax parser reads it (part of that value), though strict parsing would
    /// take it.
    static func parseCondition(_ markup: Substring, offset: Int, parser: LiquidParser) throws -> Condition {
        var operatorAfterValue = false
        let condition = try parser.parseMarkup(markup, offset: offset) { stream in
            let condition = try stream.condition()
            operatorAfterValue = stream.operatorAfterValue
            return condition
        } lax: { try $0.condition() }
        if operatorAfterValue && parser.environment.errorMode == .lax {
            return try RubyLax(markup.utf8, offset: offset, environment: parser.environment).condition()
        }
        return condition
    }

    /// `terminators`: `elsif`, `else` and the block's end tag.
    static func parseBranches(_ tag: TagToken, parser: LiquidParser, terminators: [String], negateFirst: Bool) throws -> Node {
        var branches: [IfBranch] = []
        branches.reserveCapacity(2)
        var current: Condition? = try parseCondition(tag.markup, offset: tag.markupOffset, parser: parser)
        // Blocks after the first `else` are parsed but never rendered, as in the reference.
        var collecting = true
        while true {
            let (body, end) = try parser.parseBlock(tag.name, offset: tag.offset, until: terminators)
            if collecting {
                branches.append(IfBranch(condition: current, body: body))
                if current == nil { collecting = false }
            }
            switch end.name {
            case "elsif":
                if collecting { current = try parseCondition(end.markup, offset: end.markupOffset, parser: parser) }
            case "else":
                current = nil
            default:
                let blank = branches.allSatisfy { $0.body.isBlank }
                if blank { branches = branches.map { IfBranch(condition: $0.condition, body: $0.body.removingBlankText()) } }
                return Node(branches: branches, negateFirst: negateFirst, isBlank: blank)
            }
        }
    }
}

/// `{% unless %}`: `if` with the first condition negated.
struct UnlessTag: LiquidTag {
    let name = "unless"
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        try IfTag.parseBranches(tag, parser: parser, terminators: IfTag.unlessTerminators, negateFirst: true)
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
