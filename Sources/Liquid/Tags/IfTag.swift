/// `{% if %}`/`{% elsif %}`/`{% else %}`/`{% endif %}`, and `unless` (``UnlessTag``).
struct IfTag: LiquidTag {
    let name = "if"

    struct Node: LiquidNode {
        /// Condition and body pairs; `nil` condition is the `else` branch.
        let branches: [(Condition?, Body)]
        let negateFirst: Bool
        let isBlank: Bool

        func render(_ context: RenderContext) throws {
            // Indexed in place: no copies of the conditions or the branches' bodies.
            var index = 0
            while index < branches.count {
                switch branches[index].0 {
                case .none:
                    try branches[index].1.render(context)
                    return
                case .some(let condition):
                    var truth = try context.evaluate(condition)
                    if index == 0 && negateFirst { truth.toggle() }
                    if truth {
                        try branches[index].1.render(context)
                        return
                    }
                }
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
