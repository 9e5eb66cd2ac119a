/// Reads expressions, filters and conditions from a tag's or output's markup tokens.
///
/// Tags use it through ``LiquidParser/parseMarkup(_:offset:_:)``: a tag's markup is parsed by
/// reading expressions and keywords off the stream and calling ``expectEnd()``.
///
/// Not copyable: a stream lives only for the call that reads its markup (so it can refer to the
/// parser's environment without counting references).
public struct MarkupStream: ~Copyable {
    /// The markup's bytes (a copy: markup may come from anywhere, not only the template source).
    var bytes: [UInt8]
    /// A buffer of at least one token per markup byte (reused from markup to markup): the
    /// first `tokenCount` are this markup's.
    var tokens: [MarkupToken]
    var tokenCount = 0
    var position = 0
    var depth = 0
    /// Filter names used in this markup that the environment does not have.
    /// Filter calls lax parsing accepts that will not work as written: a filter the environment
    /// does not have, or the wrong number of arguments; each reason and offset.
    var filterProblems: [(reason: LiquidError.Reason, offset: Int)] = []
    /// The environment's tags, filters and attribute syntax, kept alive by the parser for as
    /// long as the stream exists (a noncopyable value that never outlives its parse).
    private let unmanagedRegistry: Unmanaged<LiquidEnvironment.Registry>
    /// This thread's key table (names longer than a small string are shared through it).
    private let interner: Unmanaged<KeyInterner>
    /// The environment's nesting limit.
    let nestingDepth: Int
    let lax: Bool
    /// Liquid 5.13's `strict2` rules apply (strict2 mode, and warn's first, strict attempt).
    let strict2: Bool
    /// A comparison operator was written against the value before it (`a!=b`), which the
    /// reference's lax parser reads as part of that value.
    var operatorAfterValue = false
    /// UTF-8 offset of the markup in the template source.
    let markupOffset: Int
    /// The parsing thread's ``StackGuard`` limit.
    let stackLimit: UInt

    /// A stream with no markup yet (``lex(_:)`` reads it); `bytes` and `tokens` are buffers to reuse.
    init(offset: Int, environment: LiquidEnvironment, lax: Bool, interner: Unmanaged<KeyInterner>, stackLimit: UInt,
         bytes: consuming [UInt8] = [], tokens: consuming [MarkupToken] = []) {
        self.interner = interner
        self.stackLimit = stackLimit
        self.markupOffset = offset
        self.unmanagedRegistry = Unmanaged.passUnretained(environment.registry)
        self.nestingDepth = environment.limits.nestingDepth
        self.lax = lax
        self.strict2 = !lax && (environment.errorMode == .strict2 || environment.errorMode == .warn)
        self.bytes = bytes
        self.tokens = tokens
    }

    /// Reads `markup` into tokens (replacing what the buffers held).
    mutating func lex<Markup: Collection<UInt8>>(_ markup: Markup) throws {
        // (`removeAll(keepingCapacity:)` of an empty array would allocate.)
        if !bytes.isEmpty { bytes.removeAll(keepingCapacity: true) }
        if markup.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: markup)
        }
        if tokens.count <= bytes.count {
            tokens.append(contentsOf: repeatElement(MarkupToken(kind: .end, start: 0, end: 0), count: bytes.count + 1 - tokens.count))
        }
        position = 0
        tokenCount = 0
        let lexer = (markupOffset, lax)
        tokenCount = try bytes.withUnsafeBufferPointer { markup in
            try tokens.withUnsafeMutableBufferPointer { try MarkupLexer(markup, baseOffset: lexer.0, lax: lexer.1).tokenize(into: $0) }
        }
    }

    /// Calls `body` with the environment's registry, borrowed (no reference counted).
    @inline(__always)
    func withRegistry<R>(_ body: (LiquidEnvironment.Registry) throws -> R) rethrows -> R {
        try unmanagedRegistry._withUnsafeGuaranteedRef(body)
    }

    /// `true` when the environment has a dialect's `${...}` attribute syntax.
    private var hasAttributeSyntax: Bool { withRegistry { $0.hasAttributeSyntax } }

    var current: MarkupToken { tokens[position] }
    /// The source offset of the current token.
    public var offset: Int { markupOffset + tokens[position].start }
    /// `true` when every token has been read.
    public var isAtEnd: Bool { current.kind == .end }

    mutating func advance() { if position < tokenCount - 1 { position += 1 } }

    func peek(_ k: Int = 1) -> MarkupToken.Kind { tokens[min(position + k, tokenCount - 1)].kind }

    /// The bytes `a..<b` of the markup as a string.
    func string(_ a: Int, _ b: Int) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[a..<b]), as: UTF8.self) }
    }

    /// An identifier's name, a string literal's content, an attribute's trimmed name.
    func text(of token: MarkupToken) -> String {
        switch token.kind {
        case .string: return string(token.start + 1, token.end - 1)
        case .attribute:
            let (a, b) = attributeName(token)
            return string(a, b)
        default: return string(token.start, token.end)
        }
    }

    /// Where an attribute token's name lies: `${ name }` without the whitespace around it.
    private func attributeName(_ token: MarkupToken) -> (Int, Int) {
        var a = token.start + 2, b = token.end - 1
        while a < b && isSpace(bytes[a]) { a += 1 }
        while b > a && isSpace(bytes[b - 1]) { b -= 1 }
        return (a, b)
    }

    /// The bytes `a..<b` as a property key, from this thread's ``KeyInterner`` (an attribute
    /// name in many templates is one string, and a string a recipient's JSON keys share).
    func internedKey(_ a: Int, _ b: Int) -> PropertyKey {
        bytes.withUnsafeBufferPointer { all in
            interner._withUnsafeGuaranteedRef { $0.key(UnsafeBufferPointer(rebasing: all[a..<b])) }
        }
    }

    /// An identifier's or an attribute's name (see ``internedKey(_:_:)``).
    func name(of token: MarkupToken) -> String {
        guard token.kind == .attribute else { return internedKey(token.start, token.end).name }
        let (a, b) = attributeName(token)
        return internedKey(a, b).name
    }

    /// `true` when `token` is the identifier `word`.
    func isWord(_ token: MarkupToken, _ word: String) -> Bool {
        guard token.kind == .identifier, token.end - token.start == word.utf8.count else { return false }
        if let equal = word.utf8.withContiguousStorageIfAvailable({ bytesEqual(token.start, $0) }) { return equal }
        return bytes[token.start..<token.end].elementsEqual(word.utf8)
    }

    /// `true` when `token` is the identifier `word` (a keyword: compared byte by byte, without
    /// the generic sequence comparison a `String` takes).
    func isWord(_ token: MarkupToken, _ word: StaticString) -> Bool {
        guard token.kind == .identifier, token.end - token.start == word.utf8CodeUnitCount else { return false }
        return bytesEqual(token.start, UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
    }

    /// `true` when the markup bytes from `start` are `word` (which must fit).
    private func bytesEqual(_ start: Int, _ word: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            while i < word.count {
                if b[start + i] != word[i] { return false }
                i += 1
            }
            return true
        }
    }

    /// How an error message names `token`.
    func display(_ token: MarkupToken) -> String {
        switch token.kind {
        case .identifier: return "'\(text(of: token))'"
        case .string: return "string \"\(text(of: token))\""
        case .int: return "number \(token.int)"
        case .bigInt: return "number \(text(of: token))"
        case .double: return "number \(rubyFloatString(token.double))"
        case .dot: return "'.'"
        case .dotDot: return "'..'"
        case .pipe: return "'|'"
        case .colon: return "':'"
        case .comma: return "','"
        case .lbracket: return "'['"
        case .rbracket: return "']'"
        case .lparen: return "'('"
        case .rparen: return "')'"
        case .comparison: return "'\(token.comparison.rawValue)'"
        case .equals: return "'='"
        case .attribute: return "'${\(text(of: token))}'"
        case .openOutput: return "'{{'"
        case .closeOutput: return "'}}'"
        case .end: return "end of markup"
        }
    }

    func unexpected(_ expected: String) -> LiquidError {
        LiquidError.Reason.unexpectedToken(expected: expected, found: display(current)).at(offset)
    }

    /// Throws unless all markup was read.
    public func expectEnd() throws {
        if current.kind != .end { throw unexpected("end of markup") }
    }

    /// Consumes the identifier `word` when it is next.
    public mutating func accept(word: String) -> Bool {
        if isWord(current, word) { advance(); return true }
        return false
    }

    /// Consumes a `,` when it is next.
    public mutating func acceptComma() -> Bool {
        if current.kind == .comma { advance(); return true }
        return false
    }

    /// Consumes a `:` when it is next.
    public mutating func acceptColon() -> Bool {
        if current.kind == .colon { advance(); return true }
        return false
    }

    mutating func accept(_ kind: MarkupToken.Kind) -> Bool {
        if current.kind == kind { advance(); return true }
        return false
    }

    mutating func expect(_ kind: MarkupToken.Kind, _ what: String) throws {
        guard current.kind == kind else { throw unexpected(what) }
        advance()
    }

    /// The identifier at the cursor, consumed; `nil` (nothing consumed) if it is not one.
    public mutating func identifier() -> String? {
        let token = current
        guard token.kind == .identifier else { return nil }
        advance()
        return string(token.start, token.end)
    }

    /// The next identifier, or an error naming what was expected.
    public mutating func expectIdentifier(_ what: String = "an identifier") throws -> String {
        guard let id = identifier() else { throw unexpected(what) }
        return id
    }

    /// `true` when the next tokens are `identifier :` (a keyword argument).
    public var atKeywordArgument: Bool {
        current.kind == .identifier && peek() == .colon
    }

    /// Reads a primary expression: literal, variable path or range.
    public mutating func expression() throws -> LiquidExpression {
        depth += 1
        defer { depth -= 1 }
        if depth > nestingDepth || StackGuard.isExhausted(limit: stackLimit) {
            throw LiquidError.Reason.limitExceeded(.nestingDepth(nestingDepth)).at(offset)
        }
        let start = offset
        let token = current
        switch token.kind {
        case .string: advance(); return .literal(.string(text(of: token)))
        case .int: advance(); return .literal(.int(token.int))
        case .double: advance(); return .literal(.double(token.double))
        case .bigInt:
            advance()
            let digits = text(of: token)
            // Past `BigInt.maxBits`: a float, as the digits read.
            return .literal(BigInt(digits).map { .normalizing($0) } ?? .double(Double(digits) ?? 0))
        case .lparen:
            advance()
            let lo = try expression()
            try expect(.dotDot, "'..'")
            let hi = try expression()
            try expect(.rparen, "')'")
            if case .literal(let a) = lo, case .literal(let b) = hi,
               let x = try? rangeBound(a), let y = try? rangeBound(b)
            {
                return .literal(.range(x, y))
            }
            return .range(lo, hi)
        case .attribute:
            guard hasAttributeSyntax else { throw unexpected("an expression") }
            advance()
            let name = name(of: token)
            if name.isEmpty { throw LiquidError.Reason.syntax("an attribute needs a name, as in ${first_name}").at(start) }
            return try attributePath(try withRegistry { try $0.syntax.expression(namespace: nil, name: name, offset: start) }, start: start)
        case .openOutput:
            guard hasAttributeSyntax else { throw unexpected("an expression") }
            advance()
            let inner = try filteredExpression(nested: true)
            try expect(.closeOutput, "'}}'")
            return inner.filters.isEmpty ? inner.expression : .filtered(inner)
        case .identifier:
            let next = peek()
            if next == .dot, peek(2) == .attribute, hasAttributeSyntax {
                let attribute = tokens[position + 2]
                advance(); advance(); advance()
                let (namespace, name) = (name(of: token), name(of: attribute))
                if name.isEmpty { throw LiquidError.Reason.syntax("an attribute needs a name, as in \(namespace).${name}").at(start) }
                return try attributePath(try withRegistry { try $0.syntax.expression(namespace: namespace, name: name, offset: start) }, start: start)
            }
            if next != .dot && next != .lbracket {
                // The reference's lexer reads `contains` as an operator, never a value.
                if !lax && isWord(token, "contains") { throw unexpected("an expression") }
                if isWord(token, "true") { advance(); return .literal(.bool(true)) }
                if isWord(token, "false") { advance(); return .literal(.bool(false)) }
                if isWord(token, "nil") || isWord(token, "null") { advance(); return .literal(.nil) }
                if isWord(token, "empty") { advance(); return .empty }
                if isWord(token, "blank") { advance(); return .blank }
            }
            advance()
            return .variable(try pathRest(root: .name(key(token)), start: start))
        case .lbracket:
            if strict2 {
                throw LiquidError.Reason.syntax("Bare bracket access is not allowed. Use self['...'] instead").at(offset)
            }
            advance()
            let inner = try expression()
            try expect(.rbracket, "']'")
            if case .literal(.string(let s)) = inner {
                return .variable(try pathRest(root: .name(PropertyKey(s)), start: start))
            }
            return .variable(try pathRest(root: .dynamic(inner), start: start))
        default:
            throw unexpected("an expression")
        }
    }

    /// An identifier token's name as a property key (fingerprinted from the bytes).
    private func key(_ token: MarkupToken) -> PropertyKey { internedKey(token.start, token.end) }

    /// Continues an attribute's path with lookups written after it: `custom_attribute.${a}[0].goal`.
    private mutating func attributePath(_ base: LiquidExpression, start: Int) throws -> LiquidExpression {
        guard current.kind == .dot || current.kind == .lbracket else { return base }
        let rest = try pathRest(root: .name(""), start: start)
        switch base {
        case .variable(let path):
            return .variable(VariablePath(root: path.root, lookups: path.lookups + rest.lookups, text: rest.text))
        default:
            return .variable(VariablePath(root: .value(base), lookups: rest.lookups, text: rest.text))
        }
    }

    private mutating func pathRest(root: VariablePath.Root, start: Int) throws -> VariablePath {
        // A path of names (the common case) is collected as names only.
        var names: [PropertyKey] = []
        var lookups: [VariablePath.Lookup] = []
        if case .name(let first) = root {
            names.reserveCapacity(3)
            names.append(first)
        }
        func add(_ lookup: VariablePath.Lookup, _ names: inout [PropertyKey], _ lookups: inout [VariablePath.Lookup]) {
            if !names.isEmpty {
                if case .key(let k) = lookup { names.append(k); return }
                lookups = names.dropFirst().map { .key($0) }
                names = []
            }
            lookups.append(lookup)
        }
        var count = 0
        while true {
            if current.kind == .dot || current.kind == .lbracket {
                // A path is walked one level per lookup: the nesting limit bounds it.
                count += 1
                if count > nestingDepth { throw LiquidError.Reason.limitExceeded(.nestingDepth(nestingDepth)).at(offset) }
            }
            if current.kind == .dot {
                advance()
                let token = current
                guard token.kind == .identifier else { throw unexpected("a property name after '.'") }
                advance()
                add(.key(key(token)), &names, &lookups)
            } else if current.kind == .lbracket {
                advance()
                let inner = try expression()
                try expect(.rbracket, "']'")
                switch inner {
                case .literal(.string(let s)) where s == "size" || s == "first" || s == "last":
                    // A bracketed name is a key, never the `size`/`first`/`last` command.
                    add(.dynamic(inner), &names, &lookups)
                case .literal(.string(let s)): add(.key(PropertyKey(s)), &names, &lookups)
                case .literal(.int(let i)): add(.index(i), &names, &lookups)
                default: add(.dynamic(inner), &names, &lookups)
                }
            } else {
                break
            }
        }
        let text = sourceText(from: start, to: offset)
        if !names.isEmpty { return VariablePath(names: names, text: text) }
        return VariablePath(root: root, lookups: lookups, text: text)
    }

    /// The markup between two source offsets, trailing whitespace removed.
    func sourceText(from start: Int, to end: Int) -> String {
        let count = bytes.count
        let a = max(0, min(count, start - markupOffset))
        var b = max(a, min(count, end - markupOffset))
        while b > a, isSpace(bytes[b - 1]) { b -= 1 }
        return string(a, b)
    }

    /// Reads `| filter: args` calls until the markup ends or something else comes.
    public mutating func filters() throws -> [FilterCall] { try filters(nested: false) }

    /// `true` at the end of a filter's arguments in lax mode.
    private func atFilterBoundary(nested: Bool) -> Bool {
        let kind = current.kind
        return kind == .pipe || kind == .end || (nested && kind == .closeOutput)
    }

    mutating func filters(nested: Bool) throws -> [FilterCall] {
        guard current.kind == .pipe else { return [] }
        var calls: [FilterCall] = []
        calls.reserveCapacity(4)
        while current.kind == .pipe {
            advance()
            let at = offset
            guard let name = identifier() else {
                if lax { break }
                throw unexpected("a filter name")
            }
            let filter = withRegistry { $0.filters[name] }
            var arguments: [LiquidExpression] = []
            var keywordArguments: [(String, LiquidExpression)] = []
            if filter == nil { filterProblems.append((.unknownFilter(name), at)) }
            if current.kind == .colon {
                advance()
                repeat {
                    // strict2 takes `upcase:` and a trailing comma: no argument there.
                    if (lax || strict2) && atFilterBoundary(nested: nested) { break }
                    if atKeywordArgument {
                        let key = text(of: current)
                        advance(); advance()
                        keywordArguments.append((key, try expression()))
                    } else {
                        arguments.append(try expression())
                    }
                } while accept(.comma)
            }
            if let filter, !lax {
                try filter.checkArity(arguments.count, offset: at)
            } else if let filter, !filter.accepts(argumentCount: arguments.count) {
                do { try filter.checkArity(arguments.count, offset: nil) } catch let error as LiquidError {
                    filterProblems.append((error.reason, at))
                }
            }
            calls.append(FilterCall(name: name, filter: filter, arguments: arguments, keywordArguments: keywordArguments, offset: at))
            if lax {
                // The reference's lax parser skips anything up to the next '|'.
                while !atFilterBoundary(nested: nested) { advance() }
            }
        }
        return calls
    }

    /// Reads an expression followed by filters.
    public mutating func filteredExpression() throws -> FilteredExpression {
        try filteredExpression(nested: false)
    }

    /// Reads an output's markup (an expression and filters) into the node that renders it.
    mutating func outputNode() throws -> any LiquidNode {
        // `{{}}` outputs nothing, in every mode.
        if current.kind == .end { return PlainOutputNode(expression: .literal(.nil)) }
        let (expr, filters) = try expressionAndFilters(nested: false)
        if filters.isEmpty { return PlainOutputNode(expression: expr) }
        return OutputNode(expression: FilteredExpression(expression: expr, filters: filters))
    }

    mutating func filteredExpression(nested: Bool) throws -> FilteredExpression {
        let (expr, filters) = try expressionAndFilters(nested: nested)
        return FilteredExpression(expression: expr, filters: filters)
    }

    /// An expression and the filters after it (in lax mode, junk between them skipped).
    private mutating func expressionAndFilters(nested: Bool) throws -> (LiquidExpression, [FilterCall]) {
        let expr = try expression()
        if lax { while !atFilterBoundary(nested: nested) { advance() } }
        return (expr, try filters(nested: nested))
    }

    /// Reads a condition: comparisons joined by `and`/`or`, grouped from the right.
    public mutating func condition() throws -> Condition {
        depth += 1
        defer { depth -= 1 }
        if depth > nestingDepth || StackGuard.isExhausted(limit: stackLimit) {
            throw LiquidError.Reason.limitExceeded(.nestingDepth(nestingDepth)).at(offset)
        }
        let left = try comparison()
        if current.kind == .identifier {
            if isWord(current, "and") { advance(); return .and(left, try condition()) }
            if isWord(current, "or") { advance(); return .or(left, try condition()) }
        }
        return left
    }

    private mutating func comparison() throws -> Condition {
        let left = try expression()
        let op: ComparisonOperator
        let token = current
        switch token.kind {
        case .comparison:
            op = token.comparison
            if token.start > 0 {
                let before = bytes[token.start - 1]
                if !isSpace(before) && before != UInt8(ascii: "'") && before != UInt8(ascii: "\"") { operatorAfterValue = true }
            }
        case .identifier:
            if isWord(token, "contains") {
                op = .contains
            } else if isWord(token, "and") || isWord(token, "or") {
                return .value(left)
            } else {
                throw LiquidError.Reason.syntax("unknown operator '\(text(of: token))'").at(offset)
            }
        default:
            return .value(left)
        }
        advance()
        return .comparison(left, op, try expression())
    }
}

func rangeBound(_ value: LiquidValue) throws -> Int {
    switch value.resolved {
    case .int(let i): return i
    case .bigInt(let b): throw LiquidError.Reason.numberOutOfRange("range bound \(b)")
    case .nil: return 0
    case .string(let s):
        // Ruby's String#to_i: leading integer, else 0.
        return rubyStringToInt(s)
    case .double(let d):
        guard let i = integer(exactlyTruncating: d) else { throw LiquidError.Reason.numberOutOfRange("range bound \(rubyFloatString(d))") }
        return i
    default: throw LiquidError.Reason.argument("invalid integer")
    }
}

/// Ruby's `String#to_i`: optional whitespace and sign, then leading digits; 0 when none.
func rubyStringToInt(_ s: String) -> Int {
    var result = 0
    var sign = 1
    var started = false
    for b in s.utf8 {
        if !started {
            if isSpace(b) { continue }
            started = true
            if b == UInt8(ascii: "-") { sign = -1; continue }
            if b == UInt8(ascii: "+") { continue }
        }
        if isDigit(b) {
            let (m, o1) = result.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(b - 48))
            if o1 || o2 { return sign > 0 ? Int.max : Int.min }
            result = a
        } else if b == UInt8(ascii: "_") {
            continue
        } else {
            break
        }
    }
    return result * sign
}
