/// A token of tag or output markup.
enum MarkupToken: Equatable, Sendable {
    case identifier(String)
    case string(String)
    case int(Int)
    case double(Double)
    case dot, dotDot, pipe, colon, comma, lbracket, rbracket, lparen, rparen
    case comparison(String)
    case equals
    /// `${name}` (dialects with attribute syntax).
    case attribute(String)
    /// `{{` and `}}` nested in markup (dialects with attribute syntax).
    case openOutput, closeOutput
    case end

    var display: String {
        switch self {
        case .identifier(let s): return "'\(s)'"
        case .string(let s): return "string \"\(s)\""
        case .int(let i): return "number \(i)"
        case .double(let d): return "number \(rubyFloatString(d))"
        case .dot: return "'.'"
        case .dotDot: return "'..'"
        case .pipe: return "'|'"
        case .colon: return "':'"
        case .comma: return "','"
        case .lbracket: return "'['"
        case .rbracket: return "']'"
        case .lparen: return "'('"
        case .rparen: return "')'"
        case .comparison(let s): return "'\(s)'"
        case .equals: return "'='"
        case .attribute(let a): return "'${\(a)}'"
        case .openOutput: return "'{{'"
        case .closeOutput: return "'}}'"
        case .end: return "end of markup"
        }
    }
}

/// Splits markup into tokens, byte by byte.
struct MarkupLexer {
    /// The markup's bytes, borrowed from the template source for the duration of ``lex(_:baseOffset:lax:)``.
    let bytes: UnsafeBufferPointer<UInt8>
    /// UTF-8 offset of the markup in the template source.
    let baseOffset: Int

    /// Lax lexing skips characters that start no token, as the reference's lax parser does.
    let lax: Bool

    private init(_ bytes: UnsafeBufferPointer<UInt8>, baseOffset: Int, lax: Bool) {
        self.bytes = bytes
        self.baseOffset = baseOffset
        self.lax = lax
    }

    /// The tokens of `markup`, read in place (no copy of its bytes).
    static func lex(_ markup: Substring, baseOffset: Int, lax: Bool = false) throws -> [(MarkupToken, Int)] {
        if let tokens = try markup.utf8.withContiguousStorageIfAvailable({ try MarkupLexer($0, baseOffset: baseOffset, lax: lax).tokenize() }) {
            return tokens
        }
        return try Array(markup.utf8).withUnsafeBufferPointer { try MarkupLexer($0, baseOffset: baseOffset, lax: lax).tokenize() }
    }

    /// Tokens with their source offsets; the last is `.end`.
    func tokenize() throws -> [(MarkupToken, Int)] {
        var out: [(MarkupToken, Int)] = []
        out.reserveCapacity(bytes.count / 3 + 2)
        var i = 0
        let n = bytes.count
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
                    throw LiquidError.Reason.syntax("unterminated string in '\(text)'").at(baseOffset + i)
                }
                out.append((.string(String(decoding: bytes[(i + 1)..<j], as: UTF8.self)), baseOffset + start))
                i = j + 1
            case UInt8(ascii: "."):
                if i + 1 < n && bytes[i + 1] == UInt8(ascii: ".") { out.append((.dotDot, baseOffset + i)); i += 2 } else { out.append((.dot, baseOffset + i)); i += 1 }
            case UInt8(ascii: "$") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "{"):
                var j = i + 2
                while j < n && bytes[j] != UInt8(ascii: "}") { j += 1 }
                guard j < n else {
                    throw LiquidError.Reason.syntax("'${' without its closing '}'").at(baseOffset + i)
                }
                let name = String(decoding: bytes[(i + 2)..<j], as: UTF8.self)
                out.append((.attribute(name.trimmingCharacters()), baseOffset + i))
                i = j + 1
            case UInt8(ascii: "{") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "{"):
                out.append((.openOutput, baseOffset + i)); i += 2
            case UInt8(ascii: "}") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "}"):
                out.append((.closeOutput, baseOffset + i)); i += 2
            case UInt8(ascii: "|"): out.append((.pipe, baseOffset + i)); i += 1
            case UInt8(ascii: ":"): out.append((.colon, baseOffset + i)); i += 1
            case UInt8(ascii: ","): out.append((.comma, baseOffset + i)); i += 1
            case UInt8(ascii: "["): out.append((.lbracket, baseOffset + i)); i += 1
            case UInt8(ascii: "]"): out.append((.rbracket, baseOffset + i)); i += 1
            case UInt8(ascii: "("): out.append((.lparen, baseOffset + i)); i += 1
            case UInt8(ascii: ")"): out.append((.rparen, baseOffset + i)); i += 1
            case UInt8(ascii: "="), UInt8(ascii: "!"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                let next: UInt8 = i + 1 < n ? bytes[i + 1] : 0
                if b == UInt8(ascii: "=") && next != UInt8(ascii: "=") { out.append((.equals, baseOffset + i)); i += 1; continue }
                if next == UInt8(ascii: "=") || (b == UInt8(ascii: "<") && next == UInt8(ascii: ">")) {
                    let op = String(decoding: bytes[i...(i + 1)], as: UTF8.self)
                    out.append((.comparison(op == "<>" ? "!=" : op), baseOffset + i)); i += 2
                } else if b == UInt8(ascii: "!") {
                    if lax { i += 1; continue }
                    throw LiquidError.Reason.unexpectedToken(expected: "an expression", found: "'!'").at(baseOffset + i)
                } else {
                    out.append((.comparison(String(UnicodeScalar(b))), baseOffset + i)); i += 1
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
                        out.append((.identifier(String(decoding: bytes[i..<j], as: UTF8.self)), baseOffset + start))
                        i = j
                        continue
                    }
                    let text = String(decoding: bytes[i..<j], as: UTF8.self)
                    if isFloat {
                        out.append((.double(Double(text) ?? 0), baseOffset + start))
                    } else if let v = Int(text) {
                        out.append((.int(v), baseOffset + start))
                    } else {
                        out.append((.double(Double(text) ?? 0), baseOffset + start))
                    }
                    i = j
                } else if isWordByte(b) {
                    let j = scanIdentifier(from: i)
                    out.append((.identifier(String(decoding: bytes[i..<j], as: UTF8.self)), baseOffset + start))
                    i = j
                } else if lax {
                    i += 1
                } else {
                    let ch = String(decoding: bytes[i..<min(n, i + 1)], as: UTF8.self)
                    throw LiquidError.Reason.unexpectedToken(expected: "an expression", found: "'\(ch)'").at(baseOffset + i)
                }
            }
        }
        out.append((.end, baseOffset + n))
        return out
    }

    private func scanIdentifier(from start: Int) -> Int {
        var j = start
        let n = bytes.count
        while j < n && (isWordByte(bytes[j]) || bytes[j] == UInt8(ascii: "-")) { j += 1 }
        if j < n && bytes[j] == UInt8(ascii: "?") { j += 1 }
        return j
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }
}
