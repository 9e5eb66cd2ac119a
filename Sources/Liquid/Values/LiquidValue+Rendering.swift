// How values turn into output text, as Ruby's `to_s` (and Liquid's array flattening) do.

extension LiquidValue {
    /// The text this value renders as: `nil` empty, arrays concatenated, floats as Ruby prints them.
    public var renderedString: String {
        switch self {
        case .string(let s): return s
        default:
            var out = ""
            write(to: &out)
            return out
        }
    }

    /// The rendered text, or `nil` when it is longer than `limit` bytes.
    func renderedString(limit: Int) -> String? {
        if case .string(let s) = self { return s.utf8.count <= limit ? s : nil }
        var out: [UInt8] = []
        return write(to: &out, limit: limit) ? String(decoding: out, as: UTF8.self) : nil
    }

    /// Appends the rendered text to `out`.
    @inline(__always)
    public func write(to out: inout String) {
        switch self {
        case .string(let s): out += s
        case .int(let i): out += String(i)
        default:
            // Everything else as the output buffer gets it (``write(to:)-([UInt8])``).
            var bytes: [UInt8] = []
            write(to: &bytes)
            out += String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Appends the rendered text to a UTF-8 buffer (the render's output).
    public func write(to out: inout [UInt8]) { _ = write(to: &out, limit: .max) }

    /// Appends the rendered text to `out`; returns `false` (with part of the text written) as
    /// soon as `out` holds more than `limit` bytes. An array is written element by element, so
    /// that one long string repeated many times never becomes one huge buffer.
    func write(to out: inout [UInt8], limit: Int) -> Bool {
        switch self {
        case .nil: break
        case .string(let s): appendUTF8(s, to: &out)
        case .int(let i): appendDecimal(i, to: &out)
        case .bigInt(let b): out.append(contentsOf: b.description.utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .double(let d): out.append(contentsOf: rubyFloatString(d).utf8)
        case .array(let a):
            for e in a where !e.write(to: &out, limit: limit) { return false }
        case .range(let lo, let hi): out.append(contentsOf: "\(lo)..\(hi)".utf8)
        case .object: return writeInspect(to: &out, limit: limit)
        case .drop(let d): return d.drop.liquidSelf.write(to: &out, limit: limit)
        }
        return out.count <= limit
    }

    /// Ruby's `inspect`, used for objects rendered directly and in error messages.
    var rubyInspect: String {
        var out: [UInt8] = []
        _ = writeInspect(to: &out, limit: .max)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends Ruby's `inspect` of the value to `out`; `false` once `out` holds more than `limit` bytes.
    func writeInspect(to out: inout [UInt8], limit: Int) -> Bool {
        switch self {
        case .nil: out.append(contentsOf: "nil".utf8)
        case .string(let s): appendInspected(s, to: &out)
        case .int, .bigInt, .double, .bool, .range: return write(to: &out, limit: limit)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, e) in a.enumerated() {
                if i > 0 { out.append(contentsOf: ", ".utf8) }
                guard e.writeInspect(to: &out, limit: limit) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, pair) in o.enumerated() {
                if i > 0 { out.append(contentsOf: ", ".utf8) }
                appendInspected(pair.key, to: &out)
                out.append(contentsOf: "=>".utf8)
                guard pair.value.writeInspect(to: &out, limit: limit) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        case .drop(let d): return d.drop.liquidSelf.writeInspect(to: &out, limit: limit)
        }
        return out.count <= limit
    }

    /// Ruby's `inspect`, cut after about 100 bytes (for error messages).
    var briefInspect: String {
        var out: [UInt8] = []
        if writeInspect(to: &out, limit: 100) { return String(decoding: out, as: UTF8.self) }
        var cut = 100
        while cut > 0 && out[cut] & 0xC0 == 0x80 { cut -= 1 }  // not inside a UTF-8 sequence
        return String(decoding: out[..<cut], as: UTF8.self) + "..."
    }

    /// Appends Ruby's `to_s` as filters see it (arrays and objects as `inspect`); `false` once
    /// `out` holds more than `limit` bytes.
    func writeRubyString(to out: inout [UInt8], limit: Int) -> Bool {
        switch self {
        case .array, .object: return writeInspect(to: &out, limit: limit)
        case .drop(let d): return d.drop.liquidSelf.writeRubyString(to: &out, limit: limit)
        default: return write(to: &out, limit: limit)
        }
    }
}

/// Ruby's `String#inspect` of `s`.
func rubyInspectString(_ s: String) -> String {
    var out: [UInt8] = []
    appendInspected(s, to: &out)
    return String(decoding: out, as: UTF8.self)
}

/// Appends Ruby's `String#inspect` of `s` (quotes and escapes) to `out`.
func appendInspected(_ s: String, to out: inout [UInt8]) {
    let hex = Array("0123456789ABCDEF".utf8)
    out.append(UInt8(ascii: "\""))
    for b in s.utf8 {
        switch b {
        case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
        case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
        case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
        case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
        case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
        case 0..<0x20: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]])
        default: out.append(b)
        }
    }
    out.append(UInt8(ascii: "\""))
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// Formats a double as Ruby's `Float#to_s` does: the shortest round-tripping digits, fixed
/// notation from `0.0001` up to 15 integer digits (16 when there is a fraction as well:
/// `1234567890123456.8`), scientific otherwise (`1.0e-05`, `1.0e+15`), and always at least
/// one digit after the point.
public func rubyFloatString(_ value: Double) -> String {
    // From 0.0001 up to 1e15 Swift's shortest form is Ruby's, digit for digit (a small string,
    // no allocation); the rest is assembled below.
    let magnitude = value.magnitude
    if magnitude >= 0.0001 && magnitude < 1e15 { return value.description }
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
    if value == 0 { return value.sign == .minus ? "-0.0" : "0.0" }
    let (d, decpt) = shortestDigits(value.magnitude)
    let sign = value < 0 ? "-" : ""
    if decpt > 0 && (decpt < 16 || (decpt == 16 && d.count > 16)) {
        if d.count <= decpt { return sign + d + String(repeating: "0", count: decpt - d.count) + ".0" }
        return sign + d.prefix(decpt) + "." + d.dropFirst(decpt)
    }
    if decpt <= 0 && decpt > -4 {
        return sign + "0." + String(repeating: "0", count: -decpt) + d
    }
    let e = decpt - 1
    let expText = (e < 0 ? "-" : "+") + String(abs(e)).leftPadded(to: 2)
    let frac = d.count > 1 ? String(d.dropFirst()) : "0"
    return sign + String(d.first!) + "." + frac + "e" + expText
}

/// The shortest digits of a positive finite double and the position of the decimal point
/// (`0.25` is `("25", 0)`, `100.0` is `("1", 3)`).
func shortestDigits(_ value: Double) -> (String, Int) {
    let text = "\(value)"
    var mantissa = Substring(text), exponent = 0
    if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
        mantissa = text[..<e]
        exponent = Int(text[text.index(after: e)...]) ?? 0
    }
    var intPart = mantissa, fracPart: Substring = ""
    if let dot = mantissa.firstIndex(of: ".") {
        intPart = mantissa[..<dot]
        fracPart = mantissa[mantissa.index(after: dot)...]
    }
    var digits = Array((intPart + fracPart).utf8)
    var decpt = intPart.utf8.count + exponent
    var start = 0
    while start < digits.count - 1 && digits[start] == 48 { start += 1; decpt -= 1 }
    while digits.count > start + 1 && digits.last == 48 { digits.removeLast() }
    return (String(decoding: digits[start...], as: UTF8.self), decpt)
}


/// Appends `value` in decimal without an intermediate string.
@inline(__always)
func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    let count = withUnsafeMutableBytes(of: &digits) { d -> Int in
        var n = 0
        repeat {
            d[23 - n] = UInt8(48 + magnitude % 10)
            magnitude /= 10
            n += 1
        } while magnitude > 0
        return n
    }
    withUnsafeBytes(of: &digits) { d in out.append(contentsOf: d[(24 - count)...]) }
}

/// Appends the UTF-8 bytes of `s` (read in place, not retained, when the string is native).
@inline(__always)
func appendUTF8(_ s: String, to out: inout [UInt8]) {
    if s.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
        out.append(contentsOf: s.utf8)
    }
}
