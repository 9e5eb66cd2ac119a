/// Ruby Liquid 5.13's lax parsing, ported: the reference reads lax markup with regular
/// expressions (`QuotedFragment`, `VariableParser`, `TagAttributes`, each tag's `Syntax`) and
/// takes whatever they match, skipping the rest. Each function here names the Ruby code it
/// follows (`lib/liquid/expression.rb`, `variable.rb`, `variable_lookup.rb`, `tags/*.rb`).
///
/// Markup is read as bytes; a match is a range of them. Regular expressions are matched by
/// hand (no backtracking beyond what each one needs), so that any markup takes linear time.
struct RubyLax {
    /// The markup.
    let b: [UInt8]
    /// UTF-8 offset of the markup in the template source (for errors and filter problems).
    let offset: Int
    let environment: LiquidEnvironment
    /// Filter calls that will not work as written (as ``MarkupStream/filterProblems``).
    var filterProblems: [(reason: LiquidError.Reason, offset: Int)] = []

    /// For each byte, where the next `'` and the next `"` at or after it are (`b.count` for
    /// none), and where the balanced `[...]` opening there ends (-1 for none): found in one
    /// pass each, so that no match scans the rest of the markup again (linear time for
    /// markup full of stray quotes or brackets).
    private let nextSingle: [Int32], nextDouble: [Int32], bracketEnd: [Int32]

    /// `markup` must be shorter than `Int32.max` bytes (the parser does not read longer
    /// markup laxly); callers other than the parser's fallback read tag markup, as short.
    init<Bytes: Collection<UInt8>>(_ markup: Bytes, offset: Int, environment: LiquidEnvironment) {
        let bytes = Array(markup.prefix(Int(Int32.max) - 1))
        b = bytes
        self.offset = offset
        self.environment = environment
        let n = bytes.count
        var single = [Int32](repeating: Int32(n), count: n + 1), double = single
        var i = n - 1
        while i >= 0 {
            single[i] = bytes[i] == UInt8(ascii: "'") ? Int32(i) : single[i + 1]
            double[i] = bytes[i] == UInt8(ascii: "\"") ? Int32(i) : double[i + 1]
            i -= 1
        }
        var ends = [Int32](repeating: -1, count: n)
        var open: [Int] = []
        for (k, c) in bytes.enumerated() {
            if c == UInt8(ascii: "[") { open.append(k) } else if c == UInt8(ascii: "]"), let o = open.popLast() { ends[o] = Int32(k + 1) }
        }
        (nextSingle, nextDouble, bracketEnd) = (single, double, ends)
    }

    var all: Range<Int> { 0..<b.count }

    func text(_ r: Range<Int>) -> String { String(decoding: b[r], as: UTF8.self) }

    /// Ruby's `\w` on UTF-8 text (letters beyond ASCII count).
    static func isWord(_ c: UInt8) -> Bool { isWordByte(c) }

    /// `r` without leading and trailing whitespace (Ruby's `strip`, which also drops NUL).
    func strip(_ r: Range<Int>) -> Range<Int> {
        var lo = r.lowerBound, hi = r.upperBound
        while lo < hi && (isSpace(b[lo]) || b[lo] == 0) { lo += 1 }
        while hi > lo && (isSpace(b[hi - 1]) || b[hi - 1] == 0) { hi -= 1 }
        return lo..<hi
    }

    func skipSpaces(_ i: Int, _ end: Int) -> Int {
        var i = i
        while i < end && isSpace(b[i]) { i += 1 }
        return i
    }

    // MARK: QuotedString, QuotedFragment

    /// `QuotedString = /"[^"]*"|'[^']*'/` at `i`: where it ends.
    func quotedStringEnd(_ i: Int, _ end: Int) -> Int? {
        guard i < end, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { return nil }
        let j = Int(b[i] == UInt8(ascii: "'") ? nextSingle[i + 1] : nextDouble[i + 1])
        return j < end ? j + 1 : nil
    }

    /// `QuotedFragment = /#{QuotedString}|(?:[^\s,\|'"]|#{QuotedString})+/` at `i`: where it ends.
    func fragmentEnd(_ i: Int, _ end: Int) -> Int? {
        if let q = quotedStringEnd(i, end) { return q }
        var j = i
        while j < end {
            let c = b[j]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                guard let q = quotedStringEnd(j, end) else { break }
                j = q
            } else if isSpace(c) || c == UInt8(ascii: ",") || c == UInt8(ascii: "|") {
                break
            } else {
                j += 1
            }
        }
        return j > i ? j : nil
    }

    /// The first `QuotedFragment` in `r` (an unanchored match).
    func firstFragment(_ r: Range<Int>) -> Range<Int>? {
        var i = r.lowerBound
        while i < r.upperBound {
            if let e = fragmentEnd(i, r.upperBound) { return i..<e }
            i += 1
        }
        return nil
    }

    // MARK: Expressions (expression.rb, variable_lookup.rb, range_lookup.rb)

    /// `Expression.parse(markup)`. `depth`: how many brackets and ranges enclose it, limited as
    /// the strict parser limits nesting (``LiquidLimits/nestingDepth``).
    func expression(_ r: Range<Int>, depth: Int = 0) throws -> LiquidExpression {
        let limit = environment.limits.nestingDepth
        if depth > limit || StackGuard.isExhausted(limit: StackGuard.limit) {
            throw LiquidError.Reason.limitExceeded(.nestingDepth(limit)).at(offset + r.lowerBound)
        }
        let m = strip(r)
        let n = m.count
        if n >= 1, case let first = b[m.lowerBound],
           first == UInt8(ascii: "\"") || first == UInt8(ascii: "'"), b[m.upperBound - 1] == first {
            // `markup[1..-2]` (a lone quote is the empty string).
            return .literal(.string(n >= 2 ? text((m.lowerBound + 1)..<(m.upperBound - 1)) : ""))
        }
        switch text(m) {
        case "", "nil", "null": return .literal(.nil)
        case "true": return .literal(.bool(true))
        case "false": return .literal(.bool(false))
        case "blank", "empty": return .literal(.string(""))
        default: break
        }
        if n >= 2, b[m.lowerBound] == UInt8(ascii: "("), b[m.upperBound - 1] == UInt8(ascii: ")"), let (lo, hi) = rangeParts(m) {
            let a = try expression(lo, depth: depth + 1), z = try expression(hi, depth: depth + 1)
            if case .literal(let x) = a, case .literal(let y) = z {
                return .literal(.range(try Self.rangeInteger(x, text(lo)), try Self.rangeInteger(y, text(hi))))
            }
            return .range(a, z)
        }
        if let number = number(m) { return .literal(number) }
        return try variableLookup(m, depth: depth)
    }

    /// `RangeLookup.parse` on two literals: `to_i`, or a syntax error for a value without one.
    static func rangeInteger(_ v: LiquidValue, _ markup: String) throws -> Int {
        switch v {
        case .int(let i): return i
        case .bigInt(let b): throw LiquidError.Reason.numberOutOfRange("range bound \(b)")
        case .double(let d):
            guard let i = integer(exactlyTruncating: d) else { throw LiquidError.Reason.numberOutOfRange("range bound \(rubyFloatString(d))") }
            return i
        case .string(let s): return rubyStringToInt(s)
        case .nil: return 0
        default: throw LiquidError.Reason.syntax("Invalid expression type '\(markup)' in range expression")
        }
    }

    /// `RANGES_REGEX = /\A\(\s*(?>(\S+)\s*\.\.)\s*(\S+)\s*\)\z/` on `m` (which starts with `(`
    /// and ends with `)`): the two bounds' markup.
    func rangeParts(_ m: Range<Int>) -> (Range<Int>, Range<Int>)? {
        let start = skipSpaces(m.lowerBound + 1, m.upperBound)
        var runEnd = start
        while runEnd < m.upperBound && !isSpace(b[runEnd]) { runEnd += 1 }
        // The atomic group: the longest `\S+` that `\s*..` follows, and no other.
        var e = runEnd
        var dots = -1
        while e > start {
            let k = skipSpaces(e, m.upperBound)
            if k + 1 < m.upperBound && b[k] == UInt8(ascii: ".") && b[k + 1] == UInt8(ascii: ".") { dots = k; break }
            e -= 1
        }
        guard dots >= 0 else { return nil }
        let first = start..<e
        // `\s*(\S+)\s*\)\z`: the rest, without the last `)` and the spaces before it, is one run.
        let restStart = skipSpaces(dots + 2, m.upperBound)
        var restEnd = m.upperBound - 1
        while restEnd > restStart && isSpace(b[restEnd - 1]) { restEnd -= 1 }
        guard restEnd > restStart, !b[restStart..<restEnd].contains(where: isSpace) else { return nil }
        return (first, restStart..<restEnd)
    }

    /// `Expression.parse_number`: an integer, a float, or a float's leading part (`1.2.3` is
    /// 1.2, `-23.` is -23.0); `nil` for anything else.
    func number(_ m: Range<Int>) -> LiquidValue? {
        var i = m.lowerBound
        let end = m.upperBound
        guard i < end else { return nil }
        let negative = b[i] == UInt8(ascii: "-")
        if negative {
            guard i + 1 < end, isDigit(b[i + 1]) else { return nil }
            i += 1
        } else if !isDigit(b[i]) {
            return nil
        }
        var firstDot: Int?
        var numEnd: Int?
        var j = i
        while j < end {
            let c = b[j]
            if c != UInt8(ascii: ".") && !isDigit(c) { return nil }
            if numEnd == nil && c == UInt8(ascii: ".") {
                if firstDot == nil { firstDot = j } else { numEnd = j }
            }
            j += 1
        }
        let s = text(m)
        if firstDot == nil {
            if let v = Int(s) { return .int(v) }
            if let big = BigInt(s) { return .normalizing(big) }  // beyond 64 bits
            return .double(Double(s) ?? 0)
        }
        let cut = numEnd ?? end
        let prefix = text(m.lowerBound..<cut)
        // "123." reads as 123.0.
        return .double(Double(prefix.hasSuffix(".") ? String(prefix.dropLast()) : prefix) ?? 0)
    }

    /// `VariableParser = /\[(?>[^\[\]]+|\g<0>)*\]|[\w-]+\??/` at `i`: where a match ends.
    func variablePartEnd(_ i: Int, _ end: Int) -> Int? {
        if b[i] == UInt8(ascii: "[") {
            let e = Int(bracketEnd[i])
            return e > 0 && e <= end ? e : nil
        }
        var j = i
        while j < end && (Self.isWord(b[j]) || b[j] == UInt8(ascii: "-")) { j += 1 }
        guard j > i else { return nil }
        if j < end && b[j] == UInt8(ascii: "?") { j += 1 }
        return j
    }

    /// `VariableLookup.new(markup)`: the parts `VariableParser` finds, the first the name.
    func variableLookup(_ m: Range<Int>, depth: Int) throws -> LiquidExpression {
        var parts: [Range<Int>] = []
        var i = m.lowerBound
        while i < m.upperBound {
            if let e = variablePartEnd(i, m.upperBound) {
                parts.append(i..<e)
                i = e
            } else {
                i += 1
            }
        }
        guard let first = parts.first else { return .literal(.nil) }
        // A path is walked one level per lookup: the nesting limit bounds it.
        if parts.count - 1 > environment.limits.nestingDepth {
            throw LiquidError.Reason.limitExceeded(.nestingDepth(environment.limits.nestingDepth)).at(offset + m.lowerBound)
        }
        let root: VariablePath.Root
        if b[first.lowerBound] == UInt8(ascii: "[") {
            let inner = (first.lowerBound + 1)..<(first.upperBound - 1)
            switch try expression(inner, depth: depth + 1) {
            case .literal(.string(let s)): root = .name(PropertyKey(s))
            case let e: root = .dynamic(e)
            }
        } else {
            root = .name(PropertyKey(text(first)))
        }
        var lookups: [VariablePath.Lookup] = []
        for part in parts.dropFirst() {
            if b[part.lowerBound] == UInt8(ascii: "[") {
                let inner = (part.lowerBound + 1)..<(part.upperBound - 1)
                switch try expression(inner, depth: depth + 1) {
                case .literal(.string(let s)) where ["size", "first", "last"].contains(s):
                    // A bracketed name is a key, never the `size`/`first`/`last` command.
                    lookups.append(.dynamic(.literal(.string(s))))
                case .literal(.string(let s)): lookups.append(.key(PropertyKey(s)))
                case .literal(.int(let n)): lookups.append(.index(n))
                case let e: lookups.append(.dynamic(e))
                }
            } else {
                lookups.append(.key(PropertyKey(text(part))))
            }
        }
        return .variable(VariablePath(root: root, lookups: lookups, text: text(strip(m))))
    }

    /// `Condition.parse_expression`: `blank` and `empty` compare as themselves there.
    func conditionExpression(_ r: Range<Int>) throws -> LiquidExpression {
        switch text(strip(r)) {
        case "blank": return .blank
        case "empty": return .empty
        default: return try expression(r)
        }
    }

    // MARK: Variables (variable.rb)

    /// `Variable#lax_parse`: the first fragment is the value, and after the first `|` each run
    /// of fragments, spaces and commas is a filter (its first word the name, fragments after a
    /// `:` or `,` its arguments).
    mutating func filteredExpression(_ r: Range<Int>) throws -> FilteredExpression {
        guard let nameRange = firstFragment(r) else { return FilteredExpression(expression: .literal(.nil), filters: []) }
        let value = try expression(nameRange)
        var filters: [FilterCall] = []
        var i = nameRange.upperBound
        while i < r.upperBound && b[i] != UInt8(ascii: "|") { i += 1 }
        if i < r.upperBound {
            i = skipSpaces(i + 1, r.upperBound)
            // `FilterParser = /(?:\s+|#{QuotedFragment}|,)+/`, scanned.
            while i < r.upperBound {
                var j = i
                while j < r.upperBound {
                    if isSpace(b[j]) || b[j] == UInt8(ascii: ",") { j += 1 } else if let e = fragmentEnd(j, r.upperBound) { j = e } else { break }
                }
                if j > i {
                    if let call = try filterCall(i..<j) { filters.append(call) }
                    i = j
                } else {
                    i += 1
                }
            }
        }
        return FilteredExpression(expression: value, filters: filters)
    }

    /// One filter's markup: `next unless f =~ /\w+/`, the arguments from `FilterArgsRegex =
    /// /(?:[:,])\s*((?:\w+\s*\:\s*)?#{QuotedFragment})/`, keyword ones by `JustTagAttributes`.
    mutating func filterCall(_ f: Range<Int>) throws -> FilterCall? {
        var s = f.lowerBound
        while s < f.upperBound && !Self.isWord(b[s]) { s += 1 }
        guard s < f.upperBound else { return nil }
        var e = s
        while e < f.upperBound && Self.isWord(b[e]) { e += 1 }
        let name = text(s..<e)
        var arguments: [LiquidExpression] = []
        var keywords: [(String, LiquidExpression)] = []
        var i = e
        while i < f.upperBound {
            guard b[i] == UInt8(ascii: ":") || b[i] == UInt8(ascii: ",") else { i += 1; continue }
            let k = skipSpaces(i + 1, f.upperBound)
            // `(?:\w+\s*:\s*)?` first, then the fragment alone.
            var w = k
            while w < f.upperBound && Self.isWord(b[w]) { w += 1 }
            var keyword: Range<Int>?
            var valueStart = k
            if w > k {
                let c = skipSpaces(w, f.upperBound)
                if c < f.upperBound && b[c] == UInt8(ascii: ":") {
                    let v = skipSpaces(c + 1, f.upperBound)
                    if fragmentEnd(v, f.upperBound) != nil { keyword = k..<w; valueStart = v }
                }
            }
            guard let valueEnd = fragmentEnd(valueStart, f.upperBound) else { i += 1; continue }
            if let keyword {
                keywords.append((text(keyword), try expression(valueStart..<valueEnd)))
            } else {
                arguments.append(try expression(valueStart..<valueEnd))
            }
            i = valueEnd
        }
        let at = offset + s
        let filter = environment.registry.filters[name]
        if let filter {
            if !filter.accepts(argumentCount: arguments.count) {
                do { try filter.checkArity(arguments.count, offset: nil) } catch let error as LiquidError {
                    filterProblems.append((error.reason, at))
                }
            }
        } else {
            filterProblems.append((.unknownFilter(name), at))
        }
        return FilterCall(name: name, filter: filter, arguments: arguments, keywordArguments: keywords, offset: at)
    }

    // MARK: Conditions (tags/if.rb)

    /// `If#lax_parse`: `ExpressionsAndOperators` splits the markup into comparisons and the
    /// `and`/`or` between them, folded from the right; each comparison is `Syntax =
    /// /(#{QuotedFragment})\s*([=!<>a-z_]+)?\s*(#{QuotedFragment})?/`. An operator the
    /// reference does not know fails only when the comparison is evaluated.
    func condition() throws -> Condition {
        var parts: [(Range<Int>, isOperator: Bool)] = []
        var i = 0
        var chunkStart: Int?
        let end = b.count
        func atOperator(_ i: Int) -> Int? {
            // `\b(?:\s?and\s?|\s?or\s?)\b` at `i`.
            var j = i
            if isSpace(b[i]) {
                guard i > 0 && Self.isWord(b[i - 1]) else { return nil }
                j = i + 1
            } else if i > 0 && Self.isWord(b[i - 1]) {
                return nil
            }
            let k: Int
            if j + 3 <= end && b[j] == UInt8(ascii: "a") && b[j + 1] == UInt8(ascii: "n") && b[j + 2] == UInt8(ascii: "d") {
                k = j + 3
            } else if j + 2 <= end && b[j] == UInt8(ascii: "o") && b[j + 1] == UInt8(ascii: "r") {
                k = j + 2
            } else {
                return nil
            }
            if k < end && isSpace(b[k]) && k + 1 < end && Self.isWord(b[k + 1]) { return k + 1 }
            return k == end || !Self.isWord(b[k]) ? k : nil
        }
        while i < end {
            if let e = atOperator(i) {
                if let s = chunkStart { parts.append((s..<i, false)); chunkStart = nil }
                parts.append((i..<e, true))
                i = e
                continue
            }
            if chunkStart == nil { chunkStart = i }
            if isSpace(b[i]) { i += 1; continue }
            if let e = fragmentEnd(i, end) { i = e } else {
                while i < end && !isSpace(b[i]) { i += 1 }
            }
        }
        if let s = chunkStart { parts.append((s..<end, false)) }
        // Conditions nest one level per `and`/`or`: the nesting limit bounds them.
        if parts.count / 2 > environment.limits.nestingDepth {
            throw LiquidError.Reason.limitExceeded(.nestingDepth(environment.limits.nestingDepth)).at(offset)
        }
        // `scan` yields the comparisons and operators in order; the reference pops from the end.
        guard var last = parts.popLast(), !last.isOperator else { throw LiquidError.Reason.syntax("Syntax Error in tag 'if' - Valid syntax: if [expression]").at(offset) }
        var condition = try comparison(last.0)
        while !parts.isEmpty {
            last = parts.removeLast()
            let op = text(strip(last.0))
            guard let left = parts.popLast() else { throw LiquidError.Reason.syntax("Syntax Error in tag 'if' - Valid syntax: if [expression]").at(offset) }
            let comparison = try comparison(left.0)
            switch op {
            case "and": condition = .and(comparison, condition)
            case "or": condition = .or(comparison, condition)
            default: throw LiquidError.Reason.syntax("Syntax Error in tag 'if' - Valid syntax: if [expression]").at(offset)
            }
        }
        return condition
    }

    /// One comparison by `If::Syntax`.
    func comparison(_ r: Range<Int>) throws -> Condition {
        guard let left = firstFragment(r) else { throw LiquidError.Reason.syntax("Syntax Error in tag 'if' - Valid syntax: if [expression]").at(offset) }
        var i = skipSpaces(left.upperBound, r.upperBound)
        var op: Range<Int>?
        let opStart = i
        while i < r.upperBound, "=!<>abcdefghijklmnopqrstuvwxyz_".utf8.contains(b[i]) { i += 1 }
        if i > opStart { op = opStart..<i }
        let k = skipSpaces(i, r.upperBound)
        let right = fragmentEnd(k, r.upperBound).map { k..<$0 }
        let l = try conditionExpression(left)
        guard let op else {
            return .value(l)
        }
        let rhs = try right.map { try conditionExpression($0) } ?? .literal(.nil)
        let name = text(op)
        if let known = ComparisonOperator(rawValue: name) { return .comparison(l, known, rhs) }
        if name == "<>" { return .comparison(l, .notEqual, rhs) }
        return .unknownOperator(l, name, rhs)
    }
}

extension RubyLax {
    // MARK: cycle, case, assign (tags/cycle.rb, tags/case.rb, tags/assign.rb)

    /// `Cycle#lax_parse`: `NamedSyntax = /\A(#{QuotedFragment})\s*\:\s*(.*)/` names the group;
    /// otherwise `SimpleSyntax = /\A#{QuotedFragment}+/` must match. The values are the
    /// markup split at every comma, each piece's first fragment (pieces without one dropped).
    func cycle() throws -> (group: LiquidExpression?, values: [LiquidExpression]) {
        let end = b.count
        guard let fragment = fragmentEnd(0, end) else {
            throw LiquidError.Reason.syntax("Syntax Error in 'cycle' - Valid syntax: cycle [name :] var [, var2, var3 ...]").at(offset)
        }
        // The longest fragment that `\s*:` follows: the whole one, or up to its last colon.
        var nameEnd: Int?
        let k = skipSpaces(fragment, end)
        if k < end && b[k] == UInt8(ascii: ":") {
            nameEnd = fragment
        } else {
            // The last colon of the fragment outside its quoted strings.
            var j = 0
            while j < fragment {
                if let q = quotedStringEnd(j, fragment) { j = q; continue }
                if b[j] == UInt8(ascii: ":") && j > 0 { nameEnd = j }
                j += 1
            }
        }
        if let nameEnd {
            var colon = skipSpaces(nameEnd, end)
            colon += 1
            return (try expression(0..<nameEnd), try values(colon..<end))
        }
        return (nil, try values(all))
    }

    /// `variables_from_string`.
    func values(_ r: Range<Int>) throws -> [LiquidExpression] {
        var out: [LiquidExpression] = []
        var start = r.lowerBound
        var i = r.lowerBound
        while i <= r.upperBound {
            if i == r.upperBound || b[i] == UInt8(ascii: ",") {
                if let f = firstFragment(start..<i) { out.append(try expression(f)) }
                start = i + 1
            }
            i += 1
        }
        return out
    }

    /// `Case#lax_parse`: the first fragment anywhere in the markup.
    func caseSubject() throws -> LiquidExpression {
        guard let f = firstFragment(all) else { throw LiquidError.Reason.syntax("Syntax Error in tag 'case' - Valid syntax: case [condition]").at(offset) }
        return try expression(f)
    }

    /// `Case#parse_lax_when`: `WhenSyntax = /(#{QuotedFragment})(?:(?:\s+or\s+|\s*\,\s*)(#{QuotedFragment}.*))?/`
    /// repeated on what follows each value.
    func whenValues() throws -> [LiquidExpression] {
        var out: [LiquidExpression] = []
        var r = all
        while true {
            guard let f = firstFragment(r) else {
                throw LiquidError.Reason.syntax("Syntax Error in tag 'case' - Valid when condition: {% when [condition] [or condition2...] %}").at(offset)
            }
            out.append(try conditionExpression(f))
            var i = f.upperBound
            let end = r.upperBound
            // `\s*,\s*` or `\s+or\s+`, then a fragment right there.
            let spaces = skipSpaces(i, end)
            if spaces < end && b[spaces] == UInt8(ascii: ",") {
                i = skipSpaces(spaces + 1, end)
            } else if spaces > i, spaces + 2 < end, b[spaces] == UInt8(ascii: "o"), b[spaces + 1] == UInt8(ascii: "r"), isSpace(b[spaces + 2]) {
                i = skipSpaces(spaces + 2, end)
            } else {
                return out
            }
            guard fragmentEnd(i, end) != nil else { return out }
            r = i..<end
        }
    }

    /// `Assign::Syntax = /(#{VariableSignature}+)\s*=\s*(.*)\s*/` with `VariableSignature =
    /// /\(?[\w\-\.\[\]]\)?/`: the target's range and where the value starts.
    func assignParts() -> (target: Range<Int>, value: Range<Int>)? {
        func unitEnd(_ i: Int) -> Int? {
            var j = i
            if j < b.count && b[j] == UInt8(ascii: "(") { j += 1 }
            guard j < b.count else { return nil }
            let c = b[j]
            guard Self.isWord(c) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "[") || c == UInt8(ascii: "]") else { return nil }
            j += 1
            if j < b.count && b[j] == UInt8(ascii: ")") { j += 1 }
            return j
        }
        var i = 0
        while i < b.count {
            if var j = unitEnd(i) {
                while let next = unitEnd(j) { j = next }
                let k = skipSpaces(j, b.count)
                if k < b.count && b[k] == UInt8(ascii: "=") {
                    return (i..<j, skipSpaces(k + 1, b.count)..<b.count)
                }
            }
            i += 1
        }
        return nil
    }
}

extension RubyLax {
    // MARK: for, tablerow (tags/for.rb, tags/table_row.rb)

    /// `For::Syntax = /\A([\w-]+)\s+in\s+(#{QuotedFragment}+)\s*(reversed)?/` (`TableRow::Syntax
    /// = /(\w+)\s+in\s+(#{QuotedFragment}+)/`, unanchored), then every `TagAttributes =
    /// /(\w[\w-]*)\s*\:\s*(#{QuotedFragment})/` in the markup: `limit` and `offset` (and for
    /// `tablerow`, `cols`); the last of each counts.
    func loopParameters(tablerow: Bool) throws -> LoopParameters {
        let end = b.count
        func header(at start: Int) -> (variable: Range<Int>, collection: Range<Int>, reversed: Bool)? {
            var i = start
            while i < end && (Self.isWord(b[i]) || (!tablerow && b[i] == UInt8(ascii: "-"))) { i += 1 }
            guard i > start, i < end, isSpace(b[i]) else { return nil }
            let variable = start..<i
            i = skipSpaces(i, end)
            guard i + 2 < end, b[i] == UInt8(ascii: "i"), b[i + 1] == UInt8(ascii: "n"), isSpace(b[i + 2]) else { return nil }
            i = skipSpaces(i + 2, end)
            let c = i
            while let e = fragmentEnd(i, end) { i = e }
            guard i > c else { return nil }
            let collection = c..<i
            var reversed = false
            let k = skipSpaces(i, end)
            if !tablerow, k + 8 <= end, b[k..<(k + 8)].elementsEqual("reversed".utf8) { reversed = true }
            return (variable, collection, reversed)
        }
        var found: (variable: Range<Int>, collection: Range<Int>, reversed: Bool)?
        if tablerow {
            var s = 0
            while s < end && found == nil {
                if Self.isWord(b[s]) && (s == 0 || !Self.isWord(b[s - 1])) { found = header(at: s) }
                s += 1
            }
        } else {
            found = header(at: 0)
        }
        guard let found else {
            throw LiquidError.Reason.syntax("Syntax Error in '\(tablerow ? "tablerow" : "for loop")' - Valid syntax: \(tablerow ? "tablerow" : "for") [item] in [collection]").at(offset)
        }
        var p = LoopParameters()
        p.variable = text(found.variable)
        p.collection = try expression(found.collection)
        p.collectionText = text(found.collection)
        p.reversed = found.reversed
        var i = 0
        while i < end {
            guard Self.isWord(b[i]) else { i += 1; continue }
            var k = i + 1
            while k < end && (Self.isWord(b[k]) || b[k] == UInt8(ascii: "-")) { k += 1 }
            let colon = skipSpaces(k, end)
            guard colon < end, b[colon] == UInt8(ascii: ":") else { i += 1; continue }
            let v = skipSpaces(colon + 1, end)
            guard let valueEnd = fragmentEnd(v, end) else { i += 1; continue }
            let value = v..<valueEnd
            switch text(i..<k) {
            case "limit": p.limit = try expression(value)
            case "offset":
                if text(value) == "continue" {
                    (p.offsetContinue, p.offset) = (true, nil)
                } else {
                    (p.offsetContinue, p.offset) = (false, try expression(value))
                }
            case "cols" where tablerow: p.cols = try expression(value)
            default: break
            }
            i = valueEnd
        }
        return p
    }
}
