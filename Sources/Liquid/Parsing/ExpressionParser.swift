/// Reads expressions, filters and conditions from a tag's or output's markup tokens.
///
/// Tags use it through ``LiquidParser/markup(_:offset:)``: a tag's markup is parsed by
/// reading expressions and keywords off the stream and calling ``expectEnd()``.
public struct MarkupStream {
    var tokens: [(MarkupToken, Int)]
    var position = 0
    var depth = 0
    /// Filter names used in this markup that the environment does not have.
    var unknownFilters: [String] = []
    let environment: LiquidEnvironment
    let lax: Bool
    let markupText: Substring
    let markupOffset: Int

    init(markup: Substring, offset: Int, environment: LiquidEnvironment, lax: Bool) throws {
        self.markupOffset = offset
        self.tokens = try MarkupLexer.lex(markup, baseOffset: offset, lax: lax)
        self.environment = environment
        self.lax = lax
        self.markupText = markup
    }

    var current: MarkupToken { tokens[position].0 }
    /// The source offset of the current token.
    public var offset: Int { tokens[position].1 }
    /// `true` when every token has been read.
    public var isAtEnd: Bool { current == .end }

    mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    func peek(_ k: Int = 1) -> MarkupToken { tokens[min(position + k, tokens.count - 1)].0 }

    func unexpected(_ expected: String) -> LiquidError {
        LiquidError.Reason.unexpectedToken(expected: expected, found: current.display).at(offset)
    }

    /// Throws unless all markup was read.
    public func expectEnd() throws {
        if current != .end { throw unexpected("end of markup") }
    }

    /// Consumes the identifier `word` when it is next.
    public mutating func accept(word: String) -> Bool {
        if case .identifier(let w) = current, w == word { advance(); return true }
        return false
    }

    /// Consumes a `,` when it is next.
    public mutating func acceptComma() -> Bool {
        if current == .comma { advance(); return true }
        return false
    }

    /// Consumes a `:` when it is next.
    public mutating func acceptColon() -> Bool {
        if current == .colon { advance(); return true }
        return false
    }

    mutating func accept(_ token: MarkupToken) -> Bool {
        if current == token { advance(); return true }
        return false
    }

    mutating func expect(_ token: MarkupToken, _ what: String) throws {
        guard current == token else { throw unexpected(what) }
        advance()
    }

    /// The identifier at the cursor, consumed; `nil` (nothing consumed) if it is not one.
    public mutating func identifier() -> String? {
        if case .identifier(let w) = current { advance(); return w }
        return nil
    }

    /// The next identifier, or an error naming what was expected.
    public mutating func expectIdentifier(_ what: String = "an identifier") throws -> String {
        guard let id = identifier() else { throw unexpected(what) }
        return id
    }

    /// `true` when the next tokens are `identifier :` (a keyword argument).
    public var atKeywordArgument: Bool {
        if case .identifier = current, peek() == .colon { return true }
        return false
    }

    /// Reads a primary expression: literal, variable path or range.
    public mutating func expression() throws -> LiquidExpression {
        depth += 1
        defer { depth -= 1 }
        if depth > environment.limits.nestingDepth {
            throw LiquidError.Reason.limitExceeded(.nestingDepth(environment.limits.nestingDepth)).at(offset)
        }
        let start = offset
        switch current {
        case .string(let s): advance(); return .literal(.string(s))
        case .int(let i): advance(); return .literal(.int(i))
        case .double(let d): advance(); return .literal(.double(d))
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
        case .attribute(let name):
            guard let syntax = environment.attributeSyntax else { throw unexpected("an expression") }
            advance()
            return try attributePath(try syntax.expression(namespace: nil, name: name), start: start)
        case .openOutput:
            guard environment.attributeSyntax != nil else { throw unexpected("an expression") }
            advance()
            let inner = try filteredExpression(nested: true)
            try expect(.closeOutput, "'}}'")
            return inner.filters.isEmpty ? inner.expression : .filtered(inner)
        case .identifier(let name):
            if peek() == .dot, case .attribute(let attr) = peek(2), let syntax = environment.attributeSyntax {
                advance(); advance(); advance()
                return try attributePath(try syntax.expression(namespace: name, name: attr), start: start)
            }
            if peek() != .dot && peek() != .lbracket {
                switch name {
                case "true": advance(); return .literal(.bool(true))
                case "false": advance(); return .literal(.bool(false))
                case "nil", "null": advance(); return .literal(.nil)
                case "empty": advance(); return .empty
                case "blank": advance(); return .blank
                default: break
                }
            }
            advance()
            return .variable(try pathRest(root: .name(PropertyKey(name)), start: start))
        case .lbracket:
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

    /// Continues an attribute's path with lookups written after it: `custom_attribute.${a}[0].goal`.
    private mutating func attributePath(_ base: LiquidExpression, start: Int) throws -> LiquidExpression {
        guard current == .dot || current == .lbracket else { return base }
        let rest = try pathRest(root: .name(""), start: start)
        switch base {
        case .variable(let path):
            return .variable(VariablePath(root: path.root, lookups: path.lookups + rest.lookups, text: rest.text))
        default:
            return .variable(VariablePath(root: .value(base), lookups: rest.lookups, text: rest.text))
        }
    }

    private mutating func pathRest(root: VariablePath.Root, start: Int) throws -> VariablePath {
        var lookups: [VariablePath.Lookup] = []
        while true {
            if current == .dot {
                advance()
                guard let key = identifier() else { throw unexpected("a property name after '.'") }
                lookups.append(.key(PropertyKey(key)))
            } else if current == .lbracket {
                advance()
                let inner = try expression()
                try expect(.rbracket, "']'")
                switch inner {
                case .literal(.string(let s)): lookups.append(.key(PropertyKey(s)))
                case .literal(.int(let i)): lookups.append(.index(i))
                default: lookups.append(.dynamic(inner))
                }
            } else {
                break
            }
        }
        let end = offset
        let text = sourceText(from: start, to: end)
        return VariablePath(root: root, lookups: lookups, text: text)
    }

    func sourceText(from start: Int, to end: Int) -> String {
        let utf8 = markupText.utf8
        let count = utf8.count
        let a = max(0, min(count, start - markupOffset)), b = max(a, min(count, end - markupOffset))
        var e = utf8.index(utf8.startIndex, offsetBy: b)
        let s = utf8.index(utf8.startIndex, offsetBy: a)
        while e > s, isSpace(utf8[utf8.index(before: e)]) { e = utf8.index(before: e) }
        return String(markupText[s..<e])
    }

    /// Reads `| filter: args` calls until the markup ends or something else comes.
    public mutating func filters() throws -> [FilterCall] { try filters(nested: false) }

    mutating func filters(nested: Bool) throws -> [FilterCall] {
        var calls: [FilterCall] = []
        while current == .pipe {
            advance()
            let at = offset
            guard let name = identifier() else {
                if lax { break }
                throw unexpected("a filter name")
            }
            let filter = environment.filters[name]
            var arguments: [LiquidExpression] = []
            var keywordArguments: [(String, LiquidExpression)] = []
            if filter == nil { unknownFilters.append(name) }
            if current == .colon {
                advance()
                repeat {
                    if lax && (current == .end || current == .pipe || (nested && current == .closeOutput)) { break }
                    if atKeywordArgument, case .identifier(let key) = current {
                        advance(); advance()
                        keywordArguments.append((key, try expression()))
                    } else {
                        arguments.append(try expression())
                    }
                } while accept(.comma)
            }
            if let filter, !lax {
                try filter.checkArity(arguments.count, offset: at)
            }
            calls.append(FilterCall(name: name, filter: filter, arguments: arguments, keywordArguments: keywordArguments, offset: at))
            if lax {
                // The reference's lax parser skips anything up to the next '|'.
                while current != .pipe && current != .end && !(nested && current == .closeOutput) { advance() }
            }
        }
        return calls
    }

    /// Reads an expression followed by filters.
    public mutating func filteredExpression() throws -> FilteredExpression {
        try filteredExpression(nested: false)
    }

    mutating func filteredExpression(nested: Bool) throws -> FilteredExpression {
        let expr = try expression()
        if lax { while current != .pipe && current != .end && !(nested && current == .closeOutput) { advance() } }
        return FilteredExpression(expression: expr, filters: try filters(nested: nested))
    }

    /// Reads a condition: comparisons joined by `and`/`or`, grouped from the right.
    public mutating func condition() throws -> Condition {
        depth += 1
        defer { depth -= 1 }
        if depth > environment.limits.nestingDepth {
            throw LiquidError.Reason.limitExceeded(.nestingDepth(environment.limits.nestingDepth)).at(offset)
        }
        let left = try comparison()
        if accept(word: "and") { return .and(left, try condition()) }
        if accept(word: "or") { return .or(left, try condition()) }
        return left
    }

    private mutating func comparison() throws -> Condition {
        let left = try expression()
        let op: ComparisonOperator
        switch current {
        case .comparison(let s):
            guard let o = ComparisonOperator(rawValue: s) else { throw unexpected("a comparison operator") }
            op = o
        case .identifier("contains"):
            op = .contains
        case .identifier(let w) where w != "and" && w != "or":
            throw LiquidError.Reason.syntax("unknown operator '\(w)'").at(offset)
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
    case .nil: return 0
    case .string(let s):
        // Ruby's String#to_i: leading integer, else 0.
        return rubyStringToInt(s)
    case .double(let d) where d.isFinite: return Int(d)
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
