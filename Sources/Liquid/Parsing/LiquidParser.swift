/// Turns template source into a ``Body`` of nodes. Tags receive it to parse their bodies
/// and markup, during ``LiquidEnvironment/parse(_:name:)``.
///
/// Each thread reuses one parser from parse to parse; a parser something still holds after its
/// parse is left alone (and keeps describing that template), so holding one is safe, if wasteful.
public final class LiquidParser {
    /// The environment whose tags and filters are used.
    @exclusivity(unchecked) public private(set) var environment: LiquidEnvironment
    /// The template source.
    @exclusivity(unchecked) public private(set) var source: String
    /// The template name, when it has one.
    @exclusivity(unchecked) public private(set) var name: String?
    @exclusivity(unchecked) var tokens: [Token] = []
    /// The text the tokens index while a `{% liquid %}` tag's lines are parsed: the tag's markup
    /// (otherwise the tokens index `source`); `bytes` are the UTF-8 bytes of the text the tokens
    /// index and `textBase` its offset in the source.
    @exclusivity(unchecked) private var text: Substring = ""
    @exclusivity(unchecked) private var bytes: [UInt8] = []
    @exclusivity(unchecked) private var textBase = 0
    @exclusivity(unchecked) var position = 0
    @exclusivity(unchecked) var depth = 0
    /// This thread's ``StackGuard`` limit (a parser is used only by the thread that made it).
    let stackLimit = StackGuard.limit
    /// `true` while parsing the lines of a `{% liquid %}` tag.
    @exclusivity(unchecked) public private(set) var inLiquidTag = false
    /// Warnings collected in ``LiquidErrorMode/warn`` mode, and those tags give (``warn(_:at:)``).
    @exclusivity(unchecked) public internal(set) var warnings: [LiquidError] = []

    /// Records that markup parsed but will not do what it says (a dialect's tag written in a
    /// way its host ignores): a warning, reason ``LiquidError/Reason/custom(_:)``, at UTF-8
    /// `offset` in the source; the template keeps it in ``LiquidTemplate/warnings``.
    public func warn(_ message: String, at offset: Int) {
        var warning = LiquidError(.custom(message), offset: offset)
        warning.locate(in: source, name: name)
        warnings.append(warning)
    }
    /// Filter calls lax parsing accepted that will not work as written (an unknown filter, the
    /// wrong number of arguments): each reason and UTF-8 offset.
    @exclusivity(unchecked) var filterProblems: [(reason: LiquidError.Reason, offset: Int)] = []
    /// Names of filters the template uses that the environment does not have.
    public var unknownFilters: [String] {
        filterProblems.compactMap { if case .unknownFilter(let name) = $0.reason { return name } else { return nil } }
    }
    /// Markup buffers reused from one tag or output to the next.
    @exclusivity(unchecked) private var spareMarkupBytes: [UInt8] = []
    @exclusivity(unchecked) private var spareMarkupTokens: [MarkupToken] = []

    /// A parser for `source`, tokenized.
    init(source: String, environment: LiquidEnvironment, name: String?) throws {
        (self.environment, self.source, self.name) = (environment, source, name)
        try tokenize()
    }

    private func tokenize() throws {
        bytes.append(contentsOf: source.utf8)
        let attributeAware = environment.hasAttributeSyntax
        try bytes.withUnsafeBufferPointer {
            try Tokenizer(bytes: $0, attributeAware: attributeAware).tokenize(into: &tokens)
        }
    }

    // MARK: One parser per thread, reused

    /// This thread's parser between parses.
    private static let slot = ThreadSlot<LiquidParser>()
    /// Buffers grown past this many bytes are not kept.
    private static let keepLimit = 1 << 16

    /// A parser for `source`: this thread's spare one (its buffers reused), or a new one while
    /// that one is busy (a parse started during another).
    static func make(source: String, environment: LiquidEnvironment, name: String?) throws -> LiquidParser {
        guard let parser = slot.take() else { return try LiquidParser(source: source, environment: environment, name: name) }
        if !parser.environment.isSame(as: environment) { parser.environment = environment }
        parser.source = source
        parser.name = name
        try parser.tokenize()
        return parser
    }

    /// Ends a parse made with ``make(source:environment:name:)``: the parser forgets the
    /// template and becomes this thread's spare again, unless something else still holds it
    /// or its buffers grew large.
    static func recycle(_ parser: consuming LiquidParser) {
        var parser = parser
        guard isKnownUniquelyReferenced(&parser), slot.isEmpty,
              parser.bytes.capacity <= keepLimit,
              parser.tokens.capacity * MemoryLayout<Token>.stride <= keepLimit,
              parser.spareMarkupBytes.capacity <= keepLimit,
              parser.spareMarkupTokens.capacity * MemoryLayout<MarkupToken>.stride <= keepLimit
        else { return }
        parser.source = ""
        parser.name = nil
        parser.bytes.removeAll(keepingCapacity: true)
        parser.tokens.removeAll(keepingCapacity: true)
        (parser.textBase, parser.position, parser.depth, parser.inLiquidTag) = (0, 0, 0, false)
        if !parser.warnings.isEmpty { parser.warnings = [] }
        if !parser.filterProblems.isEmpty { parser.filterProblems = [] }
        slot.put(parser)
    }

    /// `true` in lax mode.
    public var isLax: Bool { environment.errorMode == .lax }

    func parseDocument() throws -> Body {
        let (body, end) = try parseBody(until: [])
        if let end { throw LiquidError.Reason.unexpectedTag(end.name).at(end.offset) }
        return body
    }

    /// The text between source offsets `a` and `b`.
    private func slice(_ a: Int, _ b: Int) -> Substring {
        inLiquidTag ? Self.slice(text, a - textBase, b - textBase) : Self.slice(source, a, b)
    }

    /// The UTF-8 offsets `a..<b` of `text`.
    private static func slice<Text: StringProtocol>(_ text: Text, _ a: Int, _ b: Int) -> Substring where Text.SubSequence == Substring {
        let utf8 = text.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: a)
        return text[start..<utf8.index(start, offsetBy: b - a)]
    }

    /// The bytes between source offsets `a` and `b`, as a string.
    private func string(_ a: Int, _ b: Int) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[(a - textBase)..<(b - textBase)]), as: UTF8.self) }
    }

    /// A tag token's name.
    private func tagName(_ token: Token) -> String { string(token.nameStart, token.nameEnd) }

    /// A tag token's whole content, stripped (for messages).
    private func strippedContent(_ token: Token) -> String { slice(token.contentStart, token.contentEnd).trimmingCharacters() }

    private func tagToken(_ token: Token, name: String) -> TagToken {
        TagToken(name: name, markup: slice(token.markupStart, token.markupEnd), offset: token.offset, markupOffset: token.markupStart)
    }

    /// Parses nodes until a tag named in `terminators` (returned, consumed) or the end of
    /// the source (`nil`). A block tag passes its `else`/`end...` names here.
    public func parseBody(until terminators: [String]) throws -> (Body, TagToken?) {
        var body = Body()
        while position < tokens.count {
            let token = tokens[position]
            position += 1
            let offset = token.offset
            switch token.kind {
            case .text, .raw:
                if token.contentEnd > token.contentStart {
                    body.append(TextNode(string(token.contentStart, token.contentEnd)), at: offset)
                }
            case .output:
                let node = try parseMarkup(bytes[(token.markupStart - textBase)..<(token.markupEnd - textBase)], offset: token.markupStart) {
                    try $0.outputNode()
                } lax: { reader -> any LiquidNode in
                    let f = try reader.filteredExpression(reader.all)
                    return f.filters.isEmpty ? PlainOutputNode(expression: f.expression) : OutputNode(expression: f)
                }
                body.append(node, at: offset)
            case .tag:
                let tagName = tagName(token)
                // (`consume`: the body moves out; returned plainly it was copied, its arrays retained.)
                if terminators.contains(tagName) { return (consume body, tagToken(token, name: tagName)) }
                if tagName.isEmpty {
                    throw LiquidError.Reason.syntax("tag '\(strippedContent(token))' has no name").at(offset)
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
                if depth > environment.limits.nestingDepth || StackGuard.isExhausted(limit: stackLimit) {
                    throw LiquidError.Reason.limitExceeded(.nestingDepth(environment.limits.nestingDepth)).at(offset)
                }
                let node = try definition.parse(tagToken(token, name: tagName), parser: self)
                body.append(node, at: offset)
            }
        }
        return (consume body, nil)
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
            let name = tagName(token)
            // (A tag without a name, `{%%}`, is ignored inside a comment, as in the reference.)
            if name.isEmpty && open != "comment" {
                throw LiquidError.Reason.syntax("tag '\(strippedContent(token))' has no name").at(token.offset)
            }
            if name == open { level += 1 }
            if name == end {
                if level == 0 { return tagToken(token, name: name) }
                level -= 1
            }
        }
        throw LiquidError.Reason.unclosedBlock(open).at(offset)
    }

    /// The `.raw` body that follows a `raw` or `doc` tag (empty when there is none).
    func takeRawBody() -> String {
        if position < tokens.count, tokens[position].kind == .raw {
            position += 1
            return string(tokens[position - 1].contentStart, tokens[position - 1].contentEnd)
        }
        return ""
    }

    /// Parses markup with `body`, following the error mode: strict and warn parse strictly;
    /// warn (and lax, where the strict parse fails) retry leniently.
    public func parseMarkup<T>(_ markup: Substring, offset: Int, _ body: (inout MarkupStream) throws -> T) throws -> T {
        try parseMarkup(markup.utf8, offset: offset, body)
    }

    func parseMarkup<Bytes: Collection<UInt8>, T>(_ markup: Bytes, offset: Int, _ body: (inout MarkupStream) throws -> T) throws -> T {
        switch environment.errorMode {
        case .strict, .strict2:
            return try parseMarkup(markup, offset: offset, lax: false, body)
        case .lax, .warn:
            do {
                return try parseMarkup(markup, offset: offset, lax: false, body)
            } catch let strictError as LiquidError {
                // A limit reached is never read past by the lax parser.
                if case .limitExceeded = strictError.reason { throw strictError }
                try checkAttributeReferences(markup, offset: offset)
                let result = try parseMarkup(markup, offset: offset, lax: true, body)
                if environment.errorMode == .warn {
                    var warning = strictError
                    warning.locate(in: source, name: name)
                    warnings.append(warning)
                }
                return result
            }
        }
    }

    /// Parses a tag's markup as the reference does: strictly with `strict`; in lax mode (and in
    /// warn mode, recording a warning) markup the strict parse refuses is read by `lax`, the
    /// port of the reference's lax parser for that tag (``RubyLax``). `laxInStrict`: Liquid
    /// 5.13's strict mode parses this tag laxly too (`assign`, `capture`, `case`, `cycle`,
    /// `increment`, `decrement`, `tablerow`, `include`, `render`); strict2 never does.
    func parseMarkup<T>(_ markup: Substring, offset: Int, laxInStrict: Bool = false,
                               _ body: (inout MarkupStream) throws -> T, lax: (inout RubyLax) throws -> T) throws -> T {
        try parseMarkup(markup.utf8, offset: offset, laxInStrict: laxInStrict, body, lax: lax)
    }

    func parseMarkup<Bytes: Collection<UInt8>, T>(_ markup: Bytes, offset: Int, laxInStrict: Bool = false,
                                                  _ body: (inout MarkupStream) throws -> T, lax: (inout RubyLax) throws -> T) throws -> T {
        switch environment.errorMode {
        case .strict2:
            return try parseMarkup(markup, offset: offset, lax: false, body)
        case .strict where !laxInStrict:
            return try parseMarkup(markup, offset: offset, lax: false, body)
        case .strict, .lax, .warn:
            do {
                return try parseMarkup(markup, offset: offset, lax: false, body)
            } catch let strictError as LiquidError {
                // A limit reached is never read past by the lax parser; nor is markup past the
                // 32-bit positions the lax reader keeps (2 GB of one tag).
                if case .limitExceeded = strictError.reason { throw strictError }
                if markup.count >= Int(Int32.max) { throw strictError }
                try checkAttributeReferences(markup, offset: offset)
                var reader = RubyLax(markup, offset: offset, environment: environment)
                let result = try lax(&reader)
                if !reader.filterProblems.isEmpty { filterProblems += reader.filterProblems }
                if environment.errorMode == .warn {
                    var warning = strictError
                    warning.locate(in: source, name: name)
                    warnings.append(warning)
                }
                return result
            }
        }
    }

    /// In a dialect with `${name}` attributes (Braze), markup that lax parsing would read past
    /// is refused in every mode, as the dashboard refuses it: a `$` not starting `${`, an
    /// attribute without its `}` or a name, a lone `{` or `}`, a quote never closed.
    func checkAttributeReferences<Bytes: Collection<UInt8>>(_ markup: Bytes, offset: Int) throws {
        guard environment.registry.hasAttributeSyntax else { return }
        let b = Array(markup)
        var i = 0
        func fail(_ message: String) -> LiquidError { LiquidError.Reason.syntax(message).at(offset + i) }
        while i < b.count {
            let c = b[i]
            switch c {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                guard let close = b[(i + 1)...].firstIndex(of: c) else { throw fail("a string is not closed: \(String(decoding: [c], as: UTF8.self)) without its pair") }
                i = close + 1
            case UInt8(ascii: "$"):
                guard i + 1 < b.count, b[i + 1] == UInt8(ascii: "{") else { throw fail("'$' starts an attribute, written ${name}") }
                guard let close = b[(i + 2)...].firstIndex(of: UInt8(ascii: "}")) else { throw fail("'${' without its closing '}'") }
                if b[(i + 2)..<close].allSatisfy(isSpace) { throw fail("an attribute needs a name, as in ${first_name}") }
                i = close + 1
            case UInt8(ascii: "{"), UInt8(ascii: "}"):
                guard i + 1 < b.count, b[i + 1] == c else { throw fail("a lone '\(String(decoding: [c], as: UTF8.self))': attributes are written ${name}, outputs {{ ... }}") }
                i += 2
            default:
                i += 1
            }
        }
    }

    /// One parse of `markup` (strict: all of it must be read), with the parser's spare buffers.
    private func parseMarkup<Bytes: Collection<UInt8>, T>(_ markup: Bytes, offset: Int, lax: Bool, _ body: (inout MarkupStream) throws -> T) throws -> T {
        var bytes: [UInt8] = [], tokens: [MarkupToken] = []
        swap(&bytes, &spareMarkupBytes)
        swap(&tokens, &spareMarkupTokens)
        // (Made first and read in the `do`: a throwing initializer made the stream be copied.)
        // This thread's key table, looked up per markup: a parser a tag kept could be asked to
        // parse on another thread, after this one (and its table) ended.
        let interner = Unmanaged.passUnretained(KeyInterner.current)
        var stream = MarkupStream(offset: offset, environment: environment, lax: lax, interner: interner, stackLimit: stackLimit,
                                  bytes: consume bytes, tokens: consume tokens)
        let result: T
        do {
            try stream.lex(markup)
            result = try body(&stream)
            // (Fields read one by one: a method call on the stream would copy it whole.)
            if !lax && stream.tokens[stream.position].kind != .end { throw stream.unexpected("end of markup") }
        } catch {
            keepBuffers(of: &stream)
            throw error
        }
        if !stream.filterProblems.isEmpty { filterProblems += stream.filterProblems }
        keepBuffers(of: &stream)
        return result
    }

    /// Keeps a finished stream's buffers for the next markup (nested parses got their own).
    private func keepBuffers(of stream: inout MarkupStream) {
        swap(&stream.bytes, &spareMarkupBytes)
        swap(&stream.tokens, &spareMarkupTokens)
    }

    /// Parses the lines of a `{% liquid %}` tag as tags.
    func parseLiquidLines(_ markup: Substring, offset: Int) throws -> Body {
        let lineBytes = Array(markup.utf8)
        var lineTokens: [Token] = []
        let n = lineBytes.count
        var lineStart = 0
        while lineStart < n {
            // Lines end at "\n" (so "\r\n" splits too); "\r" is trailing whitespace.
            var lineEnd = lineStart
            while lineEnd < n && lineBytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            var a = lineStart
            while a < lineEnd && isSpace(lineBytes[a]) { a += 1 }
            if a < lineEnd {
                // The tag name as the tokenizer reads it: `#`, or word characters. (Kept as two
                // loops: sharing one function moved field renders by 3–4 %, code layout alone.)
                var k = a
                if lineBytes[k] == UInt8(ascii: "#") {
                    k += 1
                } else {
                    while k < lineEnd && isWordByte(lineBytes[k]) { k += 1 }
                }
                let nameEnd = k
                while k < lineEnd && isSpace(lineBytes[k]) { k += 1 }
                var b = lineEnd
                while b > k && isSpace(lineBytes[b - 1]) { b -= 1 }
                var token = Token(kind: .tag, offset: offset + a, contentStart: offset + a, contentEnd: offset + lineEnd)
                token.nameStart = offset + a
                token.nameEnd = offset + nameEnd
                token.markupStart = offset + k
                token.markupEnd = offset + b
                lineTokens.append(token)
            }
            lineStart = lineEnd + 1
        }
        let saved = (tokens, position, inLiquidTag, text, bytes, textBase)
        (tokens, position, inLiquidTag, text, bytes, textBase) = (lineTokens, 0, true, markup, lineBytes, offset)
        defer { (tokens, position, inLiquidTag, text, bytes, textBase) = saved }
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
