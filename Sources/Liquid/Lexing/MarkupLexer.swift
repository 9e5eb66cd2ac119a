/// A token of tag or output markup: its kind and where it lies in the markup's bytes.
///
/// Plain data (no strings): names and string literals are read out of the markup only when
/// the parser takes them, so lexing allocates nothing and a token list is freed in one go.
struct MarkupToken: Sendable {
    enum Kind: UInt8, Sendable {
        case identifier, string, int, double
        /// An integer literal past 64 bits (its digits are the token's bytes).
        case bigInt
        case dot, dotDot, pipe, colon, comma, lbracket, rbracket, lparen, rparen
        /// `==`, `!=` (`<>`), `<`, `>`, `<=`, `>=`: the operator is in ``MarkupToken/value``.
        case comparison
        case equals
        /// `${name}` (dialects with attribute syntax).
        case attribute
        /// `{{` and `}}` nested in markup (dialects with attribute syntax).
        case openOutput, closeOutput
        case end
    }
    var kind: Kind
    /// Byte range of the token in the markup (quotes and `${ }` included).
    var start: Int
    var end: Int
    /// An `int`'s value, a `double`'s bit pattern, a `comparison`'s operator index.
    var value: UInt64 = 0

    /// The comparison operators, by ``value``.
    static let operators: [ComparisonOperator] = [.equal, .notEqual, .lessThan, .greaterThan, .lessOrEqual, .greaterOrEqual]

    var int: Int { Int(truncatingIfNeeded: value) }
    var double: Double { Double(bitPattern: value) }
    var comparison: ComparisonOperator { MarkupToken.operators[Int(value)] }
}

/// Splits markup into tokens, byte by byte.
struct MarkupLexer {
    /// The markup's bytes.
    let bytes: UnsafeBufferPointer<UInt8>
    /// UTF-8 offset of the markup in the template source.
    let baseOffset: Int
    /// Lax lexing skips characters that start no token, as the reference's lax parser does.
    let lax: Bool

    init(_ bytes: UnsafeBufferPointer<UInt8>, baseOffset: Int, lax: Bool) {
        self.bytes = bytes
        self.baseOffset = baseOffset
        self.lax = lax
    }

    /// Writes the markup's tokens to `out` from its start and returns how many there are; the
    /// last is `.end`. `out` must hold `bytes.count + 1` tokens (every token but the end takes
    /// at least one byte): writing to a buffer of that size costs no capacity or uniqueness
    /// check per token, as appending to an array does.
    func tokenize(into out: UnsafeMutableBufferPointer<MarkupToken>) throws -> Int {
        precondition(out.count > bytes.count, "a token buffer holds one token per byte, and the end")
        var i = 0
        let n = bytes.count
        var count = 0
        @inline(__always) func add(_ kind: MarkupToken.Kind, _ start: Int, _ end: Int, _ value: UInt64 = 0) {
            out[count] = MarkupToken(kind: kind, start: start, end: end, value: value)
            count += 1
        }
        while i < n {
            let b = bytes[i]
            if isSpace(b) { i += 1; continue }
            let start = i
            switch b {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                var j = i + 1
                while j < n && bytes[j] != b { j += 1 }
                guard j < n else {
                    if lax { i += 1; continue }  // the reference's lax parser skips a stray quote
                    throw LiquidError.Reason.syntax("unterminated string in '\(String(decoding: bytes, as: UTF8.self))'").at(baseOffset + i)
                }
                add(.string, start, j + 1)
                i = j + 1
            case UInt8(ascii: "."):
                if i + 1 < n && bytes[i + 1] == UInt8(ascii: ".") { add(.dotDot, i, i + 2); i += 2 } else { add(.dot, i, i + 1); i += 1 }
            case UInt8(ascii: "$") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "{"):
                var j = i + 2
                while j < n && bytes[j] != UInt8(ascii: "}") { j += 1 }
                guard j < n else {
                    throw LiquidError.Reason.syntax("'${' without its closing '}'").at(baseOffset + i)
                }
                add(.attribute, start, j + 1)
                i = j + 1
            case UInt8(ascii: "{") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "{"):
                add(.openOutput, i, i + 2); i += 2
            case UInt8(ascii: "}") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "}"):
                add(.closeOutput, i, i + 2); i += 2
            case UInt8(ascii: "|"): add(.pipe, i, i + 1); i += 1
            case UInt8(ascii: ":"): add(.colon, i, i + 1); i += 1
            case UInt8(ascii: ","): add(.comma, i, i + 1); i += 1
            case UInt8(ascii: "["): add(.lbracket, i, i + 1); i += 1
            case UInt8(ascii: "]"): add(.rbracket, i, i + 1); i += 1
            case UInt8(ascii: "("): add(.lparen, i, i + 1); i += 1
            case UInt8(ascii: ")"): add(.rparen, i, i + 1); i += 1
            case UInt8(ascii: "="), UInt8(ascii: "!"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                let next: UInt8 = i + 1 < n ? bytes[i + 1] : 0
                if b == UInt8(ascii: "=") && next != UInt8(ascii: "=") { add(.equals, i, i + 1); i += 1; continue }
                if next == UInt8(ascii: "=") {
                    // ==, !=, <=, >=
                    let op: UInt64 = b == UInt8(ascii: "=") ? 0 : b == UInt8(ascii: "!") ? 1 : b == UInt8(ascii: "<") ? 4 : 5
                    add(.comparison, i, i + 2, op); i += 2
                } else if b == UInt8(ascii: "<") && next == UInt8(ascii: ">") {
                    add(.comparison, i, i + 2, 1); i += 2
                } else if b == UInt8(ascii: "!") {
                    if lax { i += 1; continue }
                    throw LiquidError.Reason.unexpectedToken(expected: "an expression", found: "'!'").at(baseOffset + i)
                } else {
                    add(.comparison, i, i + 1, b == UInt8(ascii: "<") ? 2 : 3); i += 1
                }
            default:
                if isDigit(b) || (b == UInt8(ascii: "-") && i + 1 < n && isDigit(bytes[i + 1])) {
                    var j = i + 1
                    while j < n && isDigit(bytes[j]) { j += 1 }
                    var isFloat = false
                    if j + 1 < n && bytes[j] == UInt8(ascii: ".") && isDigit(bytes[j + 1]) {
                        isFloat = true
                        j += 1
                        while j < n && isDigit(bytes[j]) { j += 1 }
                    }
                    // Digits running into letters form an identifier (`123abc`, `1st`).
                    if j < n && !isFloat && (isWordByte(bytes[j]) || bytes[j] == UInt8(ascii: "-")) && b != UInt8(ascii: "-") {
                        j = scanIdentifier(from: i)
                        add(.identifier, start, j)
                        i = j
                        continue
                    }
                    if !isFloat, let v = parseInteger(i, j) {
                        add(.int, start, j, UInt64(bitPattern: Int64(v)))
                    } else if !isFloat {
                        add(.bigInt, start, j)
                    } else {
                        let d = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<j]), as: UTF8.self)) ?? 0
                        add(.double, start, j, d.bitPattern)
                    }
                    i = j
                } else if isWordByte(b) {
                    let j = scanIdentifier(from: i)
                    add(.identifier, start, j)
                    i = j
                } else if lax {
                    i += 1
                } else {
                    let ch = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<min(n, i + 1)]), as: UTF8.self)
                    throw LiquidError.Reason.unexpectedToken(expected: "an expression", found: "'\(ch)'").at(baseOffset + i)
                }
            }
        }
        add(.end, n, n)
        return count
    }

    /// The decimal integer in `bytes[a..<b]` (optional `-`), or `nil` when it overflows `Int`.
    private func parseInteger(_ a: Int, _ b: Int) -> Int? {
        var i = a
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var v = 0
        while i < b {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let digit = Int(bytes[i] &- 48)
            let (s, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            v = s
            i += 1
        }
        return v
    }

    private func scanIdentifier(from start: Int) -> Int {
        var j = start
        let n = bytes.count
        while j < n && (isWordByte(bytes[j]) || bytes[j] == UInt8(ascii: "-")) { j += 1 }
        if j < n && bytes[j] == UInt8(ascii: "?") { j += 1 }
        return j
    }
}
