// String filters on UTF-8 bytes: one pass, one output buffer, no `Character` (grapheme)
// iteration, no intermediate arrays of strings. Each keeps Ruby's result for every input.

/// A set of bytes as a 256-bit table: membership is one shift and mask (for byte-level
/// filters, such as ``percentEncode(_:keeping:spaceAsPlus:)-(_,ByteSet,_)``).
public struct ByteSet: Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// The bytes of `members`.
    public init<S: Sequence<UInt8>>(_ members: S) {
        for b in members { insert(b) }
    }

    mutating func insert(_ b: UInt8) {
        let bit = UInt64(1) << UInt64(b & 63)
        switch b >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    /// `true` when `b` is in the set.
    @inline(__always)
    public func contains(_ b: UInt8) -> Bool {
        let word: UInt64
        switch b >> 6 {
        case 0: word = words.0
        case 1: word = words.1
        case 2: word = words.2
        default: word = words.3
        }
        return word & (UInt64(1) << UInt64(b & 63)) != 0
    }
}

/// A string from bytes written into a buffer of at most `capacity` bytes (no intermediate array).
@inline(__always)
func makeString(capacity: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> String {
    String(unsafeUninitializedCapacity: max(capacity, 1), initializingUTF8With: write)
}

private let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

/// Percent-encodes every UTF-8 byte of `s` not in `keeping` as `%XX` (a space as `+` when
/// `spaceAsPlus`): the encoder behind `url_encode` and dialects' URL filters.
public func percentEncode(_ s: String, keeping: ByteSet, spaceAsPlus: Bool = false) -> String {
    s.withBytes { bytes in
        makeString(capacity: bytes.count * 3) { out in
            var o = 0
            for b in bytes {
                if keeping.contains(b) {
                    out[o] = b; o += 1
                } else if b == 0x20 && spaceAsPlus {
                    out[o] = UInt8(ascii: "+"); o += 1
                } else {
                    out[o] = UInt8(ascii: "%")
                    out[o + 1] = hexDigits[Int(b >> 4)]
                    out[o + 2] = hexDigits[Int(b & 0x0F)]
                    o += 3
                }
            }
            return o
        }
    }
}

/// Base64 of the UTF-8 bytes (RFC 4648, padded); `urlSafe` uses `-` and `_` (Ruby's
/// `Base64.urlsafe_encode64`).
func base64Encode(_ s: String, urlSafe: Bool) -> String {
    let alphabet: [UInt8] = Array(("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" + (urlSafe ? "-_" : "+/")).utf8)
    return s.withBytes { bytes in
        makeString(capacity: (bytes.count + 2) / 3 * 4) { out in
            var i = 0, o = 0
            let n = bytes.count
            while i + 3 <= n {
                let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                out[o] = alphabet[Int(v >> 18)]
                out[o + 1] = alphabet[Int((v >> 12) & 63)]
                out[o + 2] = alphabet[Int((v >> 6) & 63)]
                out[o + 3] = alphabet[Int(v & 63)]
                i += 3; o += 4
            }
            if n - i == 1 {
                let v = UInt32(bytes[i]) << 16
                out[o] = alphabet[Int(v >> 18)]; out[o + 1] = alphabet[Int((v >> 12) & 63)]
                out[o + 2] = UInt8(ascii: "="); out[o + 3] = UInt8(ascii: "=")
                o += 4
            } else if n - i == 2 {
                let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
                out[o] = alphabet[Int(v >> 18)]; out[o + 1] = alphabet[Int((v >> 12) & 63)]
                out[o + 2] = alphabet[Int((v >> 6) & 63)]; out[o + 3] = UInt8(ascii: "=")
                o += 4
            }
            return o
        }
    }
}

/// `strip_newlines`: Ruby's `gsub(/\r?\n/, '')` (a lone `\r` stays).
func stripNewlines(_ s: String) -> String {
    s.withBytes { bytes in
        if !bytes.contains(0x0A) { return s }
        return makeString(capacity: bytes.count) { out in
            var o = 0
            var i = 0
            let n = bytes.count
            while i < n {
                let b = bytes[i]
                if b == 0x0A || (b == 0x0D && i + 1 < n && bytes[i + 1] == 0x0A) {
                    i += b == 0x0D ? 2 : 1
                    continue
                }
                out[o] = b; o += 1
                i += 1
            }
            return o
        }
    }
}

/// `newline_to_br`: Ruby's `gsub(/\r?\n/, "<br />\n")`.
func newlineToBr(_ s: String) -> String {
    s.withBytes { bytes in
        let newlines = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        if newlines == 0 { return s }
        let br: [UInt8] = Array("<br />\n".utf8)
        return makeString(capacity: bytes.count + newlines * br.count) { out in
            var o = 0
            var i = 0
            let n = bytes.count
            while i < n {
                let b = bytes[i]
                if b == 0x0D && i + 1 < n && bytes[i + 1] == 0x0A {
                    i += 1
                    continue  // the `\r` of `\r\n` goes with it
                }
                if b == 0x0A {
                    for c in br { out[o] = c; o += 1 }
                } else {
                    out[o] = b; o += 1
                }
                i += 1
            }
            return o
        }
    }
}

/// `squish` (Liquid 5.13): Ruby's `strip`, then every run of `\s` (space, `\t`, `\n`, `\v`,
/// `\f`, `\r`) one space.
func squish(_ s: String) -> String {
    let stripped = s.trimmingRubyWhitespace(leading: true, trailing: true)
    return stripped.withBytes { bytes in
        makeString(capacity: bytes.count) { out in
            var o = 0
            var inRun = false
            for b in bytes {
                if b == 0x20 || (b >= 0x09 && b <= 0x0D) {
                    if !inRun { out[o] = 0x20; o += 1; inRun = true }
                } else {
                    out[o] = b; o += 1
                    inRun = false
                }
            }
            return o
        }
    }
}

/// `truncatewords`: Ruby's `split(" ", words + 1)` (runs of ASCII whitespace): when anything
/// follows the `words`-th word (more words, or only whitespace: one more, empty field), the
/// first `words` joined by spaces with `ellipsis`; otherwise the input.
func truncateWords(_ s: String, words: Int, ellipsis: String) -> String {
    s.withBytes { bytes in
        let n = bytes.count
        @inline(__always) func blank(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(min(words, 64))
        var i = 0
        while ranges.count < words {
            while i < n && blank(bytes[i]) { i += 1 }
            if i == n { return s }
            let start = i
            while i < n && !blank(bytes[i]) { i += 1 }
            ranges.append(start..<i)
        }
        if i == n { return s }
        let kept = ranges.reduce(0) { $0 + $1.count } + ranges.count - 1
        return makeString(capacity: kept + ellipsis.utf8.count) { out in
            var o = 0
            for (k, r) in ranges.enumerated() {
                if k > 0 { out[o] = 0x20; o += 1 }
                for j in r { out[o] = bytes[j]; o += 1 }
            }
            for b in ellipsis.utf8 { out[o] = b; o += 1 }
            return o
        }
    }
}

/// Unicode case mapping, as Ruby's `upcase`/`downcase` (and `capitalize`: the first
/// character up, the rest down): ASCII bytes mapped in place; two-byte characters from a table
/// made once; others copied unless their Unicode properties say the mapping changes them.
func caseMapped(_ s: String, upper: Bool, capitalizeFirst: Bool = false) -> String {
    s.withBytes { bytes in
        let upperTable = CaseTables.upper, lowerTable = CaseTables.lower
        // A mapping is at most three times as long as the character (`ΐ` up is three
        // characters of two bytes each).
        return makeString(capacity: bytes.count * 3 + 4) { out in
            var o = 0
            var i = 0
            let n = bytes.count
            while i < n {
                let up = capitalizeFirst ? i == 0 : upper
                let b = bytes[i]
                if b < 0x80 {
                    out[o] = up ? (b >= 0x61 && b <= 0x7A ? b - 32 : b) : (b >= 0x41 && b <= 0x5A ? b + 32 : b)
                    o += 1
                    i += 1
                    continue
                }
                let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
                let end = min(n, i + length)
                if length == 2 && end == i + 2 {
                    let scalar = (Int(b & 0x1F) << 6) | Int(bytes[i + 1] & 0x3F)
                    for c in (up ? upperTable : lowerTable)[scalar - 0x80] { out[o] = c; o += 1 }
                } else {
                    var value: UInt32 = length == 3 ? UInt32(b & 0x0F) : UInt32(b & 0x07)
                    for k in (i + 1)..<end { value = value << 6 | UInt32(bytes[k] & 0x3F) }
                    if end - i == length, CaseTables.mayChange(value, upper: up), let scalar = Unicode.Scalar(value),
                       up ? scalar.properties.changesWhenUppercased : scalar.properties.changesWhenLowercased {
                        let mapped = up ? scalar.properties.uppercaseMapping : scalar.properties.lowercaseMapping
                        for c in mapped.utf8 { out[o] = c; o += 1 }
                    } else {
                        for k in i..<end { out[o] = bytes[k]; o += 1 }
                    }
                }
                i = end
            }
            return o
        }
    }
}

/// Case mappings of U+0080–U+07FF (Latin-1, Latin Extended, Greek, Cyrillic, ...), each as
/// UTF-8 bytes, made once.
enum CaseTables {
    static let upper: [[UInt8]] = table(upper: true)
    static let lower: [[UInt8]] = table(upper: false)

    /// For U+0800–U+FFFF, one bit per character: its upper- (lower-) case mapping differs
    /// from it. Most of these (CJK, symbols) have none, and a bit is cheaper to test than
    /// their Unicode properties.
    static let changesUpper: [UInt64] = bits { $0.properties.changesWhenUppercased }
    static let changesLower: [UInt64] = bits { $0.properties.changesWhenLowercased }

    private static func bits(_ test: (Unicode.Scalar) -> Bool) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: 0x10000 / 64)
        for v in 0x800..<0x10000 {
            if let scalar = Unicode.Scalar(v), test(scalar) { words[v >> 6] |= 1 << UInt64(v & 63) }
        }
        return words
    }

    /// `false` when the character certainly has no mapping (past U+FFFF, always `true`:
    /// its properties decide).
    @inline(__always)
    static func mayChange(_ v: UInt32, upper: Bool) -> Bool {
        guard v < 0x10000 else { return true }
        let words = upper ? changesUpper : changesLower
        return words[Int(v >> 6)] & (1 << UInt64(v & 63)) != 0
    }
    private static func table(upper: Bool) -> [[UInt8]] {
        (0x80..<0x800).map { v -> [UInt8] in
            guard let scalar = Unicode.Scalar(v) else { return [] }
            let text = String(Character(scalar))
            return Array((upper ? text.uppercased() : text.lowercased()).utf8)
        }
    }
}
