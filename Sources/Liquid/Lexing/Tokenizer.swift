/// A piece of template source: literal text, an output `{{ }}` or a tag `{% %}`.
struct Token: Sendable {
    enum Kind: Sendable, Equatable { case text, output, tag, raw }
    var kind: Kind
    /// Text content, or the markup between the delimiters (trim markers removed).
    var content: Substring
    /// Tag name (tags only), e.g. `if`, `#`, `endfor`.
    var name: Substring = ""
    /// Tag markup after the name (tags only).
    var markup: Substring = ""
    /// `{{-` / `{%-`.
    var trimLeft = false
    /// `-}}` / `-%}`.
    var trimRight = false
    /// UTF-8 offset of the token's first byte in the template source.
    var offset: Int
    /// UTF-8 offset of the markup's first byte (outputs and tags).
    var markupOffset: Int = 0
}

/// Splits template source into tokens with a byte-level scan (no regular expressions).
///
/// Follows the Ruby reference's tokenizer: a tag runs from `{%` to the next `%}`; an output
/// from `{{` to the next `}}` (or a lone `}`). Whitespace control is applied here: a `-`
/// trim marker strips the neighbouring text's whitespace.
struct Tokenizer {
    let source: String
    /// Dialects with `${...}` attributes: an output skips over `${...}` and nested `{{ }}`
    /// when looking for its end.
    var attributeAware = false

    func tokenize() throws -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(source.utf8.count / 16 + 4)
        let utf8 = source.utf8
        let bytes = Array(utf8)
        let n = bytes.count
        var i = 0
        var textStart = 0
        func sub(_ a: Int, _ b: Int) -> Substring {
            let s = utf8.index(utf8.startIndex, offsetBy: a)
            let e = utf8.index(s, offsetBy: b - a)
            return source[s..<e]
        }
        // Takes the token list and start explicitly: a nested function capturing them would box
        // them, and every append would copy tokens.
        func flushText(_ tokens: inout [Token], from textStart: Int, upTo end: Int) {
            if end > textStart { tokens.append(Token(kind: .text, content: sub(textStart, end), offset: textStart)) }
        }
        while i + 1 < n {
            guard bytes[i] == UInt8(ascii: "{") else { i += 1; continue }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "%") {
                // Find "%}".
                var j = i + 2
                var close = -1
                while j + 1 < n {
                    if bytes[j] == UInt8(ascii: "%") && bytes[j + 1] == UInt8(ascii: "}") { close = j; break }
                    j += 1
                }
                guard close >= 0 else {
                    throw LiquidError.Reason.syntax("tag '{%' was not properly terminated with '%}'").at(i)
                }
                flushText(&tokens, from: textStart, upTo: i)
                var a = i + 2, b = close
                var token = Token(kind: .tag, content: "", offset: i)
                if a < b && bytes[a] == UInt8(ascii: "-") { token.trimLeft = true; a += 1 }
                if b > a && bytes[b - 1] == UInt8(ascii: "-") { token.trimRight = true; b -= 1 }
                token.content = sub(a, b)
                // Name: '#' or word characters, after leading whitespace.
                var k = a
                while k < b && isSpace(bytes[k]) { k += 1 }
                let nameStart = k
                if k < b && bytes[k] == UInt8(ascii: "#") {
                    k += 1
                } else {
                    while k < b && isWordByte(bytes[k]) { k += 1 }
                }
                token.name = sub(nameStart, k)
                while k < b && isSpace(bytes[k]) { k += 1 }
                token.markup = sub(k, b)
                token.markupOffset = k
                let rawName: String? = token.name == "raw" || token.name == "doc" ? String(token.name) : nil
                let tokenOffset = token.offset
                tokens.append(token)
                i = close + 2
                textStart = i
                // `raw` and `doc` bodies are not tokenized: find the end tag by bytes.
                if let rawName {
                    let endName = Array(("end" + rawName).utf8)
                    guard let (bodyEnd, _) = findEndTag(endName, in: bytes, from: i) else {
                        throw LiquidError.Reason.unclosedBlock(rawName).at(tokenOffset)
                    }
                    if bodyEnd > i { tokens.append(Token(kind: .raw, content: sub(i, bodyEnd), offset: i)) }
                    i = bodyEnd
                    textStart = i
                }
            } else if next == UInt8(ascii: "{") {
                var j = i + 2
                var close = -1
                var depth = 0
                while j < n {
                    if attributeAware {
                        if bytes[j] == UInt8(ascii: "$") && j + 1 < n && bytes[j + 1] == UInt8(ascii: "{") {
                            j += 2
                            while j < n && bytes[j] != UInt8(ascii: "}") { j += 1 }
                            j += 1
                            continue
                        }
                        if bytes[j] == UInt8(ascii: "{") && j + 1 < n && bytes[j + 1] == UInt8(ascii: "{") { depth += 1; j += 2; continue }
                        if depth > 0 && bytes[j] == UInt8(ascii: "}") && j + 1 < n && bytes[j + 1] == UInt8(ascii: "}") { depth -= 1; j += 2; continue }
                    }
                    if bytes[j] == UInt8(ascii: "}") { close = j; break }
                    j += 1
                }
                guard close >= 0 else {
                    throw LiquidError.Reason.syntax("variable '{{' was not properly terminated with '}}'").at(i)
                }
                let end = (close + 1 < n && bytes[close + 1] == UInt8(ascii: "}")) ? close + 2 : close + 1
                flushText(&tokens, from: textStart, upTo: i)
                var a = i + 2, b = close
                var token = Token(kind: .output, content: "", offset: i)
                if a < b && bytes[a] == UInt8(ascii: "-") { token.trimLeft = true; a += 1 }
                if b > a && bytes[b - 1] == UInt8(ascii: "-") { token.trimRight = true; b -= 1 }
                token.content = sub(a, b)
                token.markupOffset = a
                tokens.append(token)
                i = end
                textStart = i
            } else {
                i += 1
            }
        }
        flushText(&tokens, from: textStart, upTo: n)
        applyWhitespaceControl(&tokens)
        return tokens
    }

    /// `{{-`/`{%-` strip the whitespace before them, `-}}`/`-%}` the whitespace after.
    private func applyWhitespaceControl(_ tokens: inout [Token]) {
        for i in tokens.indices where tokens[i].kind == .text {
            var text = tokens[i].content
            if i > 0, tokens[i - 1].trimRight, tokens[i - 1].kind != .text {
                let utf8 = text.utf8
                let start = utf8.firstIndex { !isSpace($0) } ?? utf8.endIndex
                tokens[i].offset += utf8.distance(from: utf8.startIndex, to: start)
                text = text[start...]
            }
            if i + 1 < tokens.count, tokens[i + 1].trimLeft {
                let utf8 = text.utf8
                if let last = utf8.lastIndex(where: { !isSpace($0) }) {
                    text = text[..<utf8.index(after: last)]
                } else {
                    text = text[text.endIndex...]
                }
            }
            tokens[i].content = text
        }
    }
}

/// Finds `{%-? endNAME -?%}` from `start`; returns the offset of its `{%`.
func findEndTag(_ name: [UInt8], in bytes: [UInt8], from start: Int) -> (Int, Int)? {
    let n = bytes.count
    var i = start
    while i + 1 < n {
        if bytes[i] == UInt8(ascii: "{") && bytes[i + 1] == UInt8(ascii: "%") {
            var k = i + 2
            if k < n && bytes[k] == UInt8(ascii: "-") { k += 1 }
            while k < n && isSpace(bytes[k]) { k += 1 }
            if k + name.count <= n && Array(bytes[k..<(k + name.count)]) == name {
                k += name.count
                while k < n && isSpace(bytes[k]) { k += 1 }
                if k < n && bytes[k] == UInt8(ascii: "-") { k += 1 }
                if k + 1 < n && bytes[k] == UInt8(ascii: "%") && bytes[k + 1] == UInt8(ascii: "}") { return (i, k + 2) }
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
