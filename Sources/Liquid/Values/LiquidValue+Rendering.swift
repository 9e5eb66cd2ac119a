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
    public func write(to out: inout [UInt8]) {
        switch self {
        case .nil: break
        case .string(let s): appendUTF8(s, to: &out)
        case .int(let i): appendDecimal(i, to: &out)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .double(let d): out.append(contentsOf: rubyFloatString(d).utf8)
        case .array(let a): for e in a { e.write(to: &out) }
        case .range(let lo, let hi): out.append(contentsOf: "\(lo)..\(hi)".utf8)
        case .object: out.append(contentsOf: rubyInspect.utf8)
        case .drop(let d): d.drop.liquidSelf.write(to: &out)
        }
    }

    /// Ruby's `inspect`, used for objects rendered directly and in error messages.
    var rubyInspect: String {
        switch self {
        case .nil: return "nil"
        case .string(let s): return rubyInspectString(s)
        case .int, .double, .bool, .range: return renderedString
        case .array(let a): return "[" + a.map(\.rubyInspect).joined(separator: ", ") + "]"
        case .object(let o):
            return "{" + o.map { "\(rubyInspectString($0.key))=>\($0.value.rubyInspect)" }.joined(separator: ", ") + "}"
        case .drop(let d): return d.drop.liquidSelf.rubyInspect
        }
    }
}

func rubyInspectString(_ s: String) -> String {
    var out = "\""
    for ch in s.unicodeScalars {
        switch ch {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        default:
            if ch.value < 0x20 { out += "\\x" + String(ch.value, radix: 16, uppercase: true).leftPadded(to: 2) } else { out.unicodeScalars.append(ch) }
        }
    }
    return out + "\""
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
