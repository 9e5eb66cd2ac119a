/// `{% capture name %}...{% endcapture %}`: renders the body into a variable.
struct CaptureTag: LiquidTag {
    let name = "capture"

    struct Node: LiquidNode {
        let target: String
        let body: Body
        func render(_ context: RenderContext) throws {
            try context.store(PropertyKey(target), .string(try context.capture(body)))
        }
        var isBlank: Bool { true }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        var target = tag.markup.trimmingCharacters()
        if parser.environment.errorMode == .strict2, !validTargetName(Substring(target)) || isDigit(target.utf8.first ?? 0) {
            throw LiquidError.Reason.syntax("invalid variable name '\(target)' in capture").at(tag.markupOffset)
        }
        if target.count >= 2, let q = target.first, q == "'" || q == "\"", target.last == q {
            target = String(target.dropFirst().dropLast())
        } else if !validTargetName(Substring(target)) {
            throw LiquidError.Reason.syntax("invalid variable name '\(target)' in capture").at(tag.markupOffset)
        }
        let (body, _) = try parser.parseBlock("capture", offset: tag.offset, until: ["endcapture"])
        return Node(target: target, body: body)
    }
}
