/// JSON parsing straight into ``LiquidValue``, keeping object key order (Foundation's
/// `JSONSerialization` does not).
public struct JSONValueParser {
    /// A JSON syntax error with its 1-based line and column.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What was wrong.
        public var message: String
        /// Where, 1-based; column in bytes.
        public var line: Int, column: Int
        public var description: String { "\(line):\(column): \(message)" }
    }

    private let bytes: [UInt8]
    /// The document is `buf[start..<end]`.
    private let start: Int
    private let end: Int
    private var i: Int
    private var depth = 0
    /// The deepest arrays and objects nest in a document (Ruby's JSON parser's default): every
    /// operation on a value recurses through its nesting, so data may not nest without bound.
    public static let maxDepth = 100
    /// `bytes` while a parse runs (read through a pointer: no bounds checks beyond the parser's own).
    private var buf = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    /// This thread's key table, while a parse runs (looked up once a parse, not once a key).
    private var interner: Unmanaged<KeyInterner>?

    /// A parser for `text`.
    public init(_ text: String) { self.init(bytes: Array(text.utf8)) }
    /// A parser for UTF-8 `bytes`.
    public init<B: Sequence>(bytes: B) where B.Element == UInt8 {
        let array = Array(bytes)
        self.init(buffer: array, range: 0..<array.count)
    }
    /// A parser for the UTF-8 document `buffer[range]`, read in place (no copy): one line of
    /// a block of NDJSON, say. Error lines and columns count from the range's start.
    public init(buffer: [UInt8], range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "range outside the buffer")
        self.bytes = buffer
        (start, end, i) = (range.lowerBound, range.upperBound, range.lowerBound)
    }

    /// Parses one JSON document (whitespace around it allowed).
    public mutating func parse() throws -> LiquidValue {
        let bytes = self.bytes
        let interner = KeyInterner.current
        self.interner = .passUnretained(interner)
        defer { self.interner = nil }
        return try withExtendedLifetime(interner) {
            try bytes.withUnsafeBufferPointer { pointer in
                buf = pointer
                defer { buf = UnsafeBufferPointer(start: nil, count: 0) }
                return try parseDocument()
            }
        }
    }

    private mutating func parseDocument() throws -> LiquidValue {
        // The document is text: invalid UTF-8 anywhere in it is an error at its place (in a
        // string it would otherwise become U+FFFD in a payload without a word). One pass,
        // eight ASCII bytes at a time; strings are then valid, as quotes are ASCII.
        if let bad = SourceText.firstInvalidUTF8(in: UnsafeBufferPointer(rebasing: buf[start..<end])) {
            i = start + bad
            throw error("invalid UTF-8 (byte 0x\(String(buf[i], radix: 16, uppercase: true)))")
        }
        // A UTF-8 byte order mark (a file saved on Windows, the first line of an NDJSON file).
        if end - i >= 3, buf[i] == 0xEF, buf[i + 1] == 0xBB, buf[i + 2] == 0xBF { i += 3 }
        skipSpace()
        let v = try value()
        skipSpace()
        if i < end { throw error("unexpected text after the JSON value") }
        return v
    }

    /// Parses `text` as JSON.
    public static func parse(_ text: String) throws -> LiquidValue {
        var p = JSONValueParser(text)
        return try p.parse()
    }

    private func error(_ message: String) -> SyntaxError {
        var line = 1, col = 1
        for b in buf[start..<min(i, end)] {
            if b == 0x0A { line += 1; col = 1 } else { col += 1 }
        }
        return SyntaxError(message: message, line: line, column: col)
    }

    private mutating func skipSpace() {
        while i < end, buf[i] == 0x20 || buf[i] == 0x0A || buf[i] == 0x0D || buf[i] == 0x09 { i += 1 }
    }

    private mutating func value() throws -> LiquidValue {
        guard i < end else { throw error("unexpected end of JSON") }
        switch buf[i] {
        case UInt8(ascii: "{"):
            depth += 1
            defer { depth -= 1 }
            if depth > Self.maxDepth { throw error("JSON nested more than \(Self.maxDepth) deep") }
            i += 1
            skipSpace()
            if i < end && buf[i] == UInt8(ascii: "}") { i += 1; return .object(LiquidObject()) }
            var object = LiquidObject()
            while true {
                skipSpace()
                guard i < end, buf[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let key = try objectKey()
                skipSpace()
                guard i < end, buf[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
                i += 1
                skipSpace()
                object.set(key, try value())
                skipSpace()
                guard i < end else { throw error("unexpected end of JSON in an object") }
                if buf[i] == UInt8(ascii: ",") { i += 1; continue }
                if buf[i] == UInt8(ascii: "}") { i += 1; object.compact(); return .object(object) }
                throw error("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            depth += 1
            defer { depth -= 1 }
            if depth > Self.maxDepth { throw error("JSON nested more than \(Self.maxDepth) deep") }
            i += 1
            var array: [LiquidValue] = []
            skipSpace()
            if i < end && buf[i] == UInt8(ascii: "]") { i += 1; return .array(array) }
            while true {
                skipSpace()
                array.append(try value())
                skipSpace()
                guard i < end else { throw error("unexpected end of JSON in an array") }
                if buf[i] == UInt8(ascii: ",") { i += 1; continue }
                if buf[i] == UInt8(ascii: "]") { i += 1; return .array(array) }
                throw error("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .nil
        default:
            return try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard i + count <= end else { throw error("invalid literal") }
        let w = word.utf8Start
        for k in 0..<count where buf[i + k] != w[k] { throw error("invalid literal") }
        i += count
    }

    private mutating func number() throws -> LiquidValue {
        // Fast path: a plain integer that fits comfortably (at most 18 digits).
        var j = i
        var negative = false
        if j < end && buf[j] == UInt8(ascii: "-") { negative = true; j += 1 }
        var magnitude = 0
        let digitsStart = j
        while j < end, isDigit(buf[j]), j - digitsStart < 18 {
            magnitude = magnitude * 10 + Int(buf[j] &- 48)
            j += 1
        }
        if j > digitsStart, j == end || !(isDigit(buf[j]) || buf[j] == UInt8(ascii: ".") || buf[j] == UInt8(ascii: "e") || buf[j] == UInt8(ascii: "E")) {
            i = j
            return .int(negative ? -magnitude : magnitude)
        }
        let start = i
        if i < end && buf[i] == UInt8(ascii: "-") { i += 1 }
        var isFloat = false
        while i < end {
            let b = buf[i]
            if isDigit(b) { i += 1 } else if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") { isFloat = true; i += 1 } else { break }
        }
        let text = String(decoding: buf[start..<i], as: UTF8.self)
        if text.isEmpty || text == "-" { throw error("unexpected character") }
        if !isFloat, let v = Int(text) { return .int(v) }
        // An integer past 64 bits stays exact (Ruby's JSON gives a bignum); past
        // `BigInt.maxBits`, a float.
        if !isFloat, let big = BigInt(text) { return .normalizing(big) }
        guard let d = Double(text) else { throw error("invalid number '\(text)'") }
        return .double(d)
    }

    /// An object key: escape-free keys come from this thread's ``KeyInterner``, so that the
    /// same key in thousands of documents is one string (no allocation, and a lookup compares
    /// against memory that is already in cache).
    private mutating func objectKey() throws -> PropertyKey {
        let start = i + 1
        var j = start
        while j < end {
            let b = buf[j]
            if b == UInt8(ascii: "\"") {
                let key = interner!._withUnsafeGuaranteedRef { $0.key(UnsafeBufferPointer(rebasing: buf[start..<j])) }
                i = j + 1
                return key
            }
            if b == UInt8(ascii: "\\") { break }
            j += 1
        }
        return PropertyKey(try string())
    }

    private mutating func string() throws -> String {
        i += 1
        // Fast path: no escapes before the closing quote.
        var j = i
        while j < end {
            let b = buf[j]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: buf[i..<j]), as: UTF8.self)
                i = j + 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            j += 1
        }
        var out: [UInt8] = []
        while i < end {
            let b = buf[i]
            if b == UInt8(ascii: "\"") { i += 1; return String(decoding: out, as: UTF8.self) }
            if b == UInt8(ascii: "\\") {
                i += 1
                guard i < end else { break }
                let e = buf[i]
                i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    // A high surrogate and a low one make one scalar; a surrogate without its
                    // pair is U+FFFD (and whatever escape follows is read on its own).
                    if (0xD800..<0xDC00).contains(code), i + 5 < end, buf[i] == UInt8(ascii: "\\"), buf[i + 1] == UInt8(ascii: "u") {
                        let mark = i
                        i += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            i = mark
                        }
                    }
                    let scalar = UnicodeScalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: String(Character(scalar)).utf8)
                default: out.append(e)
                }
                continue
            }
            out.append(b)
            i += 1
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= end, let v = UInt32(String(decoding: buf[i..<(i + 4)], as: UTF8.self), radix: 16) else {
            throw error("invalid \\u escape")
        }
        i += 4
        return v
    }
}

extension LiquidValue {
    /// Serializes as JSON (object keys in order; floats as Ruby prints them).
    public var jsonString: String {
        // Bytes first, one String at the end: no temporary strings per key or value.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        writeJSONBytes(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func writeJSONBytes(to out: inout [UInt8]) { _ = writeJSONBytes(to: &out, limit: .max) }

    /// Appends the JSON text to `out`; `false` (with part of it written) as soon as `out`
    /// holds more than `limit` bytes.
    func writeJSONBytes(to out: inout [UInt8], limit: Int) -> Bool {
        switch self {
        case .nil: out += [0x6E, 0x75, 0x6C, 0x6C]
        case .bool(let b): out += b ? Array("true".utf8) : Array("false".utf8)
        case .int(let i): out += String(i).utf8
        case .bigInt(let b): out += b.description.utf8
        case .double(let d): out += (d.isFinite ? rubyFloatString(d) : "null").utf8
        case .string(let s): writeJSONStringBytes(s, to: &out)
        case .array(let a):
            out.append(0x5B)
            for (n, e) in a.enumerated() {
                if n > 0 { out.append(0x2C) }
                guard e.writeJSONBytes(to: &out, limit: limit) else { return false }
            }
            out.append(0x5D)
        case .object(let o):
            out.append(0x7B)
            for (n, e) in o.entries.enumerated() {
                if n > 0 { out.append(0x2C) }
                writeJSONStringBytes(e.key, to: &out)
                out.append(0x3A)
                guard e.value.writeJSONBytes(to: &out, limit: limit) else { return false }
            }
            out.append(0x7D)
        case .range(let lo, let hi): out += "\"\(lo)..\(hi)\"".utf8
        case .drop(let d): return d.drop.liquidSelf.writeJSONBytes(to: &out, limit: limit)
        }
        return out.count <= limit
    }

    /// Serializes as indented JSON (two spaces, keys in order, a newline at the end of
    /// nothing): stable, for golden files.
    public var prettyJSONString: String {
        var out = ""
        writePrettyJSON(to: &out, indent: 0)
        return out
    }

    func writePrettyJSON(to out: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1), closePad = String(repeating: "  ", count: indent)
        switch self {
        case .array(let a) where !a.isEmpty:
            out += "[\n"
            for (n, e) in a.enumerated() {
                out += pad
                e.writePrettyJSON(to: &out, indent: indent + 1)
                out += n < a.count - 1 ? ",\n" : "\n"
            }
            out += closePad + "]"
        case .object(let o) where !o.isEmpty:
            out += "{\n"
            for (n, pair) in o.enumerated() {
                out += pad
                writeJSONString(pair.key, to: &out)
                out += ": "
                pair.value.writePrettyJSON(to: &out, indent: indent + 1)
                out += n < o.count - 1 ? ",\n" : "\n"
            }
            out += closePad + "}"
        case .drop(let d): d.drop.liquidSelf.writePrettyJSON(to: &out, indent: indent)
        default: out += jsonString
        }
    }

}

func writeJSONString(_ s: String, to out: inout String) {
    var bytes: [UInt8] = []
    writeJSONStringBytes(s, to: &bytes)
    out += String(decoding: bytes, as: UTF8.self)
}

func writeJSONStringBytes(_ s: String, to out: inout [UInt8]) {
    var s = s
    s.withUTF8 { writeJSONStringUTF8($0, to: &out) }
}

/// Appends the UTF-8 text `bytes` as a JSON string literal (quotes, escapes) to `out`.
@inline(__always)
func writeJSONStringUTF8(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    out.append(0x22)
    var runStart = 0
    var i = 0
    let n = bytes.count
    while i < n {
        let b = bytes[i]
        if b >= 0x20 && b != 0x22 && b != 0x5C { i += 1; continue }
        if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
        switch b {
        case 0x22: out += [0x5C, 0x22]
        case 0x5C: out += [0x5C, 0x5C]
        case 0x0A: out += [0x5C, 0x6E]
        case 0x0D: out += [0x5C, 0x72]
        case 0x09: out += [0x5C, 0x74]
        default: out += ("\\u" + String(b, radix: 16).leftPadded(to: 4)).utf8
        }
        i += 1
        runStart = i
    }
    if n > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
    out.append(0x22)
}
