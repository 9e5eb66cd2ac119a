/// Turns template source into a ``Body`` of nodes. Tags receive it to parse their bodies
/// and markup.
public final class LiquidParser {
    /// The environment whose tags and filters are used.
    public let environment: LiquidEnvironment
    /// The template source.
    public let source: String
    /// The template name, when it has one.
    public let name: String?
    var tokens: [Token]
    var position = 0
    var depth = 0
    /// `true` while parsing the lines of a `{% liquid %}` tag.
    public private(set) var inLiquidTag = false
    /// Warnings collected in ``LiquidErrorMode/warn`` mode.
    public internal(set) var warnings: [LiquidError] = []
    /// Names of filters the template uses that the environment does not have.
    public internal(set) var unknownFilters: [String] = []

    init(source: String, environment: LiquidEnvironment, name: String?) throws {
        self.environment = environment
        self.source = source
        self.name = name
        self.tokens = try Tokenizer(source: source, attributeAware: environment.attributeSyntax != nil).tokenize()
    }

    /// `true` in lax mode.
    public var isLax: Bool { environment.errorMode == .lax }

    func parseDocument() throws -> Body {
        let (body, end) = try parseBody(until: [])
        if let end { throw LiquidError.Reason.unexpectedTag(end.name).at(end.offset) }
        return body
    }

    /// Parses nodes until a tag named in `terminators` (returned, consumed) or the end of
    /// the source (`nil`). A block tag passes its `else`/`end...` names here.
    public func parseBody(until terminators: [String]) throws -> (Body, TagToken?) {
        var body = Body()
        while position < tokens.count {
            // Fields are read one by one: copying a whole token would retain its three substrings.
            let index = position
            position += 1
            let offset = tokens[index].offset
            switch tokens[index].kind {
            case .text, .raw:
                let content = tokens[index].content
                if !content.isEmpty { body.append(TextNode(String(content)), at: offset) }
            case .output:
                let expr = try parseMarkup(tokens[index].content, offset: tokens[index].markupOffset) { try $0.filteredExpression() }
                body.append(OutputNode(expression: expr), at: offset)
            case .tag:
                let tagName = String(tokens[index].name)
                let tag = TagToken(name: tagName, markup: tokens[index].markup, offset: offset, markupOffset: tokens[index].markupOffset)
                if terminators.contains(tagName) { return (body, tag) }
                if tagName.isEmpty {
                    throw LiquidError.Reason.syntax("tag '\(tokens[index].content.trimmingCharacters())' has no name").at(offset)
                }
                guard let definition = environment.tags[tagName] else {
                    // `else`, `endif` and the like outside the block that takes them.
                    let isDelimiter = ["else", "elsif", "when"].contains(tagName)
                        || (tagName.hasPrefix("end") && environment.tags[String(tagName.dropFirst(3))] != nil)
                    if isDelimiter { throw LiquidError.Reason.unexpectedTag(tagName).at(offset) }
                    throw LiquidError.Reason.unknownTag(tagName).at(offset)
                }
                depth += 1
                defer { depth -= 1 }
                if depth > environment.limits.nestingDepth {
                    throw LiquidError.Reason.limitExceeded(.nestingDepth(environment.limits.nestingDepth)).at(offset)
                }
                let node = try definition.parse(tag, parser: self)
                body.append(node, at: offset)
            }
        }
        return (body, nil)
    }

    /// Parses a block's body up to one of `terminators`; a missing end tag is an error naming `blockName`.
    public func parseBlock(_ blockName: String, offset: Int, until terminators: [String]) throws -> (Body, TagToken) {
        let (body, end) = try parseBody(until: terminators)
        guard let end else { throw LiquidError.Reason.unclosedBlock(blockName).at(offset) }
        return (body, end)
    }

    /// Skips tokens up to the tag `end` (nested `open ... end` pairs counted), as comments do.
    func skipBlock(open: String, end: String, offset: Int) throws -> TagToken {
        var level = 0
        while position < tokens.count {
            let token = tokens[position]
            position += 1
            guard token.kind == .tag else { continue }
            if token.name.isEmpty {
                throw LiquidError.Reason.syntax("tag '\(token.content.trimmingCharacters())' has no name").at(token.offset)
            }
            if token.name == open { level += 1 }
            if token.name == end {
                if level == 0 {
                    return TagToken(name: String(token.name), markup: token.markup, offset: token.offset, markupOffset: token.markupOffset)
                }
                level -= 1
            }
        }
        throw LiquidError.Reason.unclosedBlock(open).at(offset)
    }

    /// The `.raw` body that follows a `raw` or `doc` tag (empty when there is none).
    func takeRawBody() -> String {
        if position < tokens.count, tokens[position].kind == .raw {
            position += 1
            return String(tokens[position - 1].content)
        }
        return ""
    }

    /// Parses markup with `body`, following the error mode: strict and warn parse strictly;
    /// warn (and lax, where the strict parse fails) retry leniently.
    public func parseMarkup<T>(_ markup: Substring, offset: Int, _ body: (inout MarkupStream) throws -> T) throws -> T {
        switch environment.errorMode {
        case .strict:
            var stream = try MarkupStream(markup: markup, offset: offset, environment: environment, lax: false)
            let result = try body(&stream)
            try stream.expectEnd()
            unknownFilters += stream.unknownFilters
            return result
        case .lax, .warn:
            do {
                var stream = try MarkupStream(markup: markup, offset: offset, environment: environment, lax: false)
                let result = try body(&stream)
                try stream.expectEnd()
                unknownFilters += stream.unknownFilters
                return result
            } catch let strictError as LiquidError {
                var stream = try MarkupStream(markup: markup, offset: offset, environment: environment, lax: true)
                let result = try body(&stream)
                unknownFilters += stream.unknownFilters
                if environment.errorMode == .warn {
                    var warning = strictError
                    warning.locate(in: source, name: name)
                    warnings.append(warning)
                }
                return result
            }
        }
    }

    /// Parses the lines of a `{% liquid %}` tag as tags.
    func parseLiquidLines(_ markup: Substring, offset: Int) throws -> Body {
        var lineTokens: [Token] = []
        let utf8 = markup.utf8
        var lineStart = utf8.startIndex
        while lineStart < utf8.endIndex {
            // Lines end at "\n" (bytes, so "\r\n" splits too); "\r" is trailing whitespace.
            let lineEnd = utf8[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? utf8.endIndex
            let line = markup[lineStart..<lineEnd]
            let lineOffset = offset + utf8.distance(from: utf8.startIndex, to: lineStart)
            let trimmed = line.drop(while: \.isWhitespace)
            if !trimmed.isEmpty {
                let nameEnd: Substring.Index
                if trimmed.first == "#" {
                    nameEnd = trimmed.index(after: trimmed.startIndex)
                } else {
                    nameEnd = trimmed.firstIndex(where: { !($0.isLetter || $0.isNumber || $0 == "_") }) ?? trimmed.endIndex
                }
                let name = trimmed[trimmed.startIndex..<nameEnd]
                let rest = trimmed[nameEnd...].drop(while: \.isWhitespace)
                var content = rest
                while let l = content.last, l.isWhitespace { content.removeLast() }
                let nameOffset = lineOffset + line.utf8.distance(from: line.startIndex, to: trimmed.startIndex)
                let restOffset = lineOffset + line.utf8.distance(from: line.startIndex, to: rest.startIndex)
                lineTokens.append(Token(kind: .tag, content: trimmed, name: name, markup: content, offset: nameOffset, markupOffset: restOffset))
            }
            lineStart = lineEnd < utf8.endIndex ? utf8.index(after: lineEnd) : lineEnd
        }
        let savedTokens = tokens, savedPosition = position, savedMode = inLiquidTag
        tokens = lineTokens
        position = 0
        inLiquidTag = true
        defer {
            tokens = savedTokens
            position = savedPosition
            inLiquidTag = savedMode
        }
        let (body, end) = try parseBody(until: [])
        if let end { throw LiquidError.Reason.unknownTag(end.name).at(end.offset) }
        return body
    }
}

extension Substring {
    /// Without leading and trailing ASCII whitespace (Ruby's `strip`).
    func trimmingCharacters() -> String {
        let u = utf8
        guard let first = u.firstIndex(where: { !isSpace($0) }), let last = u.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first..<u.index(after: last)])
    }
}

extension String {
    /// Without leading and trailing ASCII whitespace (Ruby's `strip`).
    func trimmingCharacters() -> String { Substring(self).trimmingCharacters() }
}
