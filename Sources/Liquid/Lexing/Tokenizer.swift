#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A piece of template source: literal text, an output `{{ }}` or a tag `{% %}`.
///
/// Plain data: the token's parts are byte ranges into the source's UTF-8 bytes, so that a
/// token list holds no references and the parser makes strings only of what it keeps.
struct Token: Sendable {
    enum Kind: UInt8, Sendable { case text, output, tag, raw }
    var kind: Kind
    /// `{{-` / `{%-`.
    var trimLeft = false
    /// `-}}` / `-%}`.
    var trimRight = false
    /// UTF-8 offset of the token's first byte in the template source.
    var offset: Int
    /// Text content, or the markup between the delimiters (trim markers removed).
    var contentStart: Int
    var contentEnd: Int
    /// Tag name (tags only), e.g. `if`, `#`, `endfor`.
    var nameStart = 0
    var nameEnd = 0
    /// Tag markup after the name (tags), or the output's markup.
    var markupStart = 0
    var markupEnd = 0

    init(kind: Kind, offset: Int, contentStart: Int, contentEnd: Int) {
        self.kind = kind
        self.offset = offset
        self.contentStart = contentStart
        self.contentEnd = contentEnd
    }
}

/// Splits template source into tokens with a byte-level scan (no regular expressions).
///
/// Follows the Ruby reference's tokenizer: a tag runs from `{%` to the next `%}`; an output
/// from `{{` to the next `}}` (or a lone `}`). Whitespace control is applied here: a `-`
/// trim marker strips the neighbouring text's whitespace.
struct Tokenizer {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Dialects with `${...}` attributes: an output skips over `${...}` and nested `{{ }}`
    /// when looking for its end.
    var attributeAware = false

    /// Appends the tokens of the source to `tokens`.
    func tokenize(into tokens: inout [Token]) throws {
        let n = bytes.count
        tokens.reserveCapacity(n / 16 + 4)
        var i = 0
        var textStart = 0
        // Takes the token list and start explicitly: a nested function capturing them would box
        // them, and every append would copy tokens.
        func flushText(_ tokens: inout [Token], from textStart: Int, upTo end: Int) {
            if end > textStart { tokens.append(Token(kind: .text, offset: textStart, contentStart: textStart, contentEnd: end)) }
        }
        while i + 1 < n {
            guard bytes[i] == UInt8(ascii: "{") else {
                i = find(UInt8(ascii: "{"), from: i + 1) ?? n
                continue
            }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "%") {
                // Find "%}".
                var j = i + 2
                var close = -1
                while j + 1 < n, let percent = find(UInt8(ascii: "%"), from: j), percent + 1 < n {
                    if bytes[percent + 1] == UInt8(ascii: "}") { close = percent; break }
                    j = percent + 1
                }
                guard close >= 0 else {
                    throw LiquidError.Reason.syntax("tag '{%' was not properly terminated with '%}'").at(i)
                }
                flushText(&tokens, from: textStart, upTo: i)
                var a = i + 2, b = close
                var token = Token(kind: .tag, offset: i, contentStart: a, contentEnd: b)
                if a < b && bytes[a] == UInt8(ascii: "-") { token.trimLeft = true; a += 1 }
                if b > a && bytes[b - 1] == UInt8(ascii: "-") { token.trimRight = true; b -= 1 }
                token.contentStart = a
                token.contentEnd = b
                // Name: '#' or word characters, after leading whitespace.
                var k = a
                while k < b && isSpace(bytes[k]) { k += 1 }
                let nameStart = k
                if k < b && bytes[k] == UInt8(ascii: "#") {
                    k += 1
                } else {
                    while k < b && isWordByte(bytes[k]) { k += 1 }
                }
                token.nameStart = nameStart
                token.nameEnd = k
                while k < b && isSpace(bytes[k]) { k += 1 }
                token.markupStart = k
                token.markupEnd = b
                // `raw` or `doc` (compared by bytes: this runs for every tag).
                var rawName: String?
                if token.nameEnd - nameStart == 3 {
                    let (b0, b1, b2) = (bytes[nameStart], bytes[nameStart + 1], bytes[nameStart + 2])
                    if b0 == UInt8(ascii: "r") && b1 == UInt8(ascii: "a") && b2 == UInt8(ascii: "w") { rawName = "raw" }
                    if b0 == UInt8(ascii: "d") && b1 == UInt8(ascii: "o") && b2 == UInt8(ascii: "c") { rawName = "doc" }
                }
                tokens.append(token)
                i = close + 2
                textStart = i
                // `raw` and `doc` bodies are not tokenized: find the end tag by bytes.
                if let rawName {
                    guard let (bodyEnd, _) = findEndTag(Array(("end" + rawName).utf8), in: bytes, from: i) else {
                        throw LiquidError.Reason.unclosedBlock(rawName).at(token.offset)
                    }
                    if bodyEnd > i { tokens.append(Token(kind: .raw, offset: i, contentStart: i, contentEnd: bodyEnd)) }
                    i = bodyEnd
                    textStart = i
                }
            } else if next == UInt8(ascii: "{") {
                var j = i + 2
                var close = -1
                var depth = 0
                while j < n {
                    let c = bytes[j]
                    // Most bytes are none of `$`, `{`, `}` (0x24, 0x7B, 0x7D).
                    if c < UInt8(ascii: "{") && c != UInt8(ascii: "$") { j += 1; continue }
                    if attributeAware {
                        if c == UInt8(ascii: "$") && j + 1 < n && bytes[j + 1] == UInt8(ascii: "{") {
                            j = (find(UInt8(ascii: "}"), from: j + 2) ?? n) + 1
                            continue
                        }
                        if c == UInt8(ascii: "{") && j + 1 < n && bytes[j + 1] == UInt8(ascii: "{") { depth += 1; j += 2; continue }
                        if c == UInt8(ascii: "{") {
                            throw LiquidError.Reason.syntax("a lone '{' in an output: attributes are written ${name}").at(j)
                        }
                        if depth > 0 && c == UInt8(ascii: "}") && j + 1 < n && bytes[j + 1] == UInt8(ascii: "}") { depth -= 1; j += 2; continue }
                    }
                    if c == UInt8(ascii: "}") { close = j; break }
                    j += 1
                }
                guard close >= 0 else {
                    throw LiquidError.Reason.syntax("variable '{{' was not properly terminated with '}}'").at(i)
                }
                let doubleBrace = close + 1 < n && bytes[close + 1] == UInt8(ascii: "}")
                // The reference takes `{{ x }` as an output; a dialect with `${name}` attributes
                // (Braze) does not: there it is a brace short (`{{${first_name}}`).
                if attributeAware && !doubleBrace {
                    throw LiquidError.Reason.syntax("variable '{{' was closed with a single '}' (attributes are written ${name} inside {{ }})").at(close)
                }
                let end = doubleBrace ? close + 2 : close + 1
                flushText(&tokens, from: textStart, upTo: i)
                var a = i + 2, b = close
                var token = Token(kind: .output, offset: i, contentStart: a, contentEnd: b)
                if a < b && bytes[a] == UInt8(ascii: "-") {
                    token.trimLeft = true
                    a += 1
                    // `{{-}}`: the one dash trims both sides, as in the reference.
                    if a == b { token.trimRight = true }
                }
                if b > a && bytes[b - 1] == UInt8(ascii: "-") { token.trimRight = true; b -= 1 }
                token.contentStart = a
                token.contentEnd = b
                token.markupStart = a
                token.markupEnd = b
                tokens.append(token)
                i = end
                textStart = i
            } else {
                i += 1
            }
        }
        flushText(&tokens, from: textStart, upTo: n)
        applyWhitespaceControl(&tokens)
    }

    /// The offset of the first `byte` at or after `start`, or `nil` (`memchr`).
    @inline(__always)
    private func find(_ byte: UInt8, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
              let hit = memchr(base + start, Int32(byte), bytes.count - start)
        else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// `{{-`/`{%-` strip the whitespace before them, `-}}`/`-%}` the whitespace after.
    private func applyWhitespaceControl(_ tokens: inout [Token]) {
        for i in tokens.indices where tokens[i].kind == .text {
            var a = tokens[i].contentStart, b = tokens[i].contentEnd
            if i > 0, tokens[i - 1].trimRight, tokens[i - 1].kind != .text {
                while a < b && isSpace(bytes[a]) { a += 1 }
                tokens[i].offset = a
            }
            if i + 1 < tokens.count, tokens[i + 1].trimLeft {
                while b > a && isSpace(bytes[b - 1]) { b -= 1 }
            }
            tokens[i].contentStart = a
            tokens[i].contentEnd = b
        }
    }
}

/// Finds `{%-? endNAME -?%}` from `start`; returns the offset of its `{%`.
func findEndTag(_ name: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (Int, Int)? {
    let n = bytes.count
    var i = start
    while i + 1 < n {
        if bytes[i] == UInt8(ascii: "{") && bytes[i + 1] == UInt8(ascii: "%") {
            var k = i + 2
            if k < n && bytes[k] == UInt8(ascii: "-") { k += 1 }
            while k < n && isSpace(bytes[k]) { k += 1 }
            if k + name.count <= n && bytes[k..<(k + name.count)].elementsEqual(name) {
                k += name.count
                // The name ends there; whatever follows up to `%}` is the tag's markup, which
                // the reference ignores (`{% endraw xyz %}` ends a raw block).
                if k < n && isWordByte(bytes[k]) { i += 1; continue }
                // (A tag ends before another one opens: `{% endraw {% endraw %}` ends at the second.)
                var opensAgain = false
                while k + 1 < n && !(bytes[k] == UInt8(ascii: "%") && bytes[k + 1] == UInt8(ascii: "}")) {
                    if bytes[k] == UInt8(ascii: "{") && (bytes[k + 1] == UInt8(ascii: "%") || bytes[k + 1] == UInt8(ascii: "{")) { opensAgain = true; break }
                    k += 1
                }
                if !opensAgain && k + 1 < n { return (i, k + 2) }
            }
        }
        i += 1
    }
    return nil
}

@inline(__always) func isSpace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D || b == 0x0B || b == 0x0C
}

@inline(__always) func isWordByte(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b >= 0x80
}

@inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
