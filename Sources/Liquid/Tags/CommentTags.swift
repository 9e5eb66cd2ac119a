/// `{% comment %}...{% endcomment %}`: nothing is rendered; nested comments are counted and
/// the tags inside are not parsed.
struct CommentTag: LiquidTag {
    let name = "comment"
    struct Node: LiquidNode {
        func render(_ context: RenderContext) throws {}
        var isBlank: Bool { true }
    }
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        _ = try parser.skipBlock(open: "comment", end: "endcomment", offset: tag.offset)
        return Node()
    }
}

/// `{% # a comment %}`: every line of the comment must start with `#`.
struct InlineCommentTag: LiquidTag {
    let name = "#"
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        for line in tag.markup.split(separator: "\n", omittingEmptySubsequences: true).dropFirst() {
            let trimmed = line.drop(while: \.isWhitespace)
            if !trimmed.isEmpty && trimmed.first != "#" {
                throw LiquidError.Reason.syntax("every line of an inline comment must start with '#'").at(tag.offset)
            }
        }
        return CommentTag.Node()
    }
}

/// `{% raw %}...{% endraw %}`: the body is output as written.
struct RawTag: LiquidTag {
    let name = "raw"
    /// The body as written: blank only when empty (a `{% raw %} {% endraw %}` in a blank
    /// block keeps its space, as in the reference).
    struct Node: LiquidNode {
        let text: String
        func render(_ context: RenderContext) throws { context.write(text) }
        var isBlank: Bool { text.isEmpty }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        // As the reference, in every mode: `raw` takes no arguments.
        guard tag.markup.utf8.allSatisfy(isSpace) else {
            throw LiquidError.Reason.syntax("Syntax Error in 'raw' - Valid syntax: raw (no arguments)").at(tag.markupOffset)
        }
        let body = parser.takeRawBody()
        _ = try parser.parseBlock("raw", offset: tag.offset, until: ["endraw"])
        return Node(text: body)
    }
}

/// `{% doc %}...{% enddoc %}`: documentation, not parsed and not rendered.
struct DocTag: LiquidTag {
    let name = "doc"
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        guard tag.markup.allSatisfy(\.isWhitespace) else {
            throw LiquidError.Reason.syntax("doc takes no arguments").at(tag.markupOffset)
        }
        let body = parser.takeRawBody()
        if Array(body.utf8).withUnsafeBufferPointer({ findEndTag(Array("doc".utf8), in: $0, from: 0) }) != nil {
            throw LiquidError.Reason.syntax("nested doc tags are not allowed").at(tag.offset)
        }
        _ = try parser.parseBlock("doc", offset: tag.offset, until: ["enddoc"])
        return CommentTag.Node()
    }
}
