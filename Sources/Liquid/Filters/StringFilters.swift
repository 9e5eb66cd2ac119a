import Foundation

/// String filters.
enum StringFilters {
    static let all: [LiquidFilter] = [
        caseFilter("downcase", upper: false),
        caseFilter("upcase", upper: true),
        string("capitalize") { s in
            if let ascii = asciiCapitalize(s) { return ascii }
            // The first character up, the rest down (by code points, as Ruby).
            return caseMapped(s, upper: false, capitalizeFirst: true)
        },
        string("strip") { $0.trimmingRubyWhitespace(leading: true, trailing: true) },
        string("lstrip") { $0.trimmingRubyWhitespace(leading: true, trailing: false) },
        string("rstrip") { $0.trimmingRubyWhitespace(leading: false, trailing: true) },
        string("squish") { squish($0) },
        string("strip_newlines") { stripNewlines($0) },
        string("newline_to_br") { newlineToBr($0) },
        string("escape") { htmlEscape($0) },
        string("h") { htmlEscape($0) },
        string("escape_once") { htmlEscapeOnce($0) },
        string("url_encode") { urlEncode($0) },
        string("url_decode") { urlDecode($0) },
        string("base64_encode") { base64Encode($0, urlSafe: false) },
        string("base64_url_safe_encode") { base64Encode($0, urlSafe: true) },
        LiquidFilter("base64_decode") { input, _, context in .string(try base64Decode(try context.rubyText(input), urlSafe: false)) },
        LiquidFilter("base64_url_safe_decode") { input, _, context in .string(try base64Decode(try context.rubyText(input), urlSafe: true)) },
        string("strip_html") { stripHTML($0) },
        stringArg("append", 1) { s, a, c in s + (try c.rubyText(a[0])) },
        stringArg("prepend", 1) { s, a, c in try c.rubyText(a[0]) + s },
        stringArg("remove", 1) { s, a, c in try s.replacingAll(try c.rubyText(a[0]), with: "", limit: c.limits.stringBytes) },
        stringArg("remove_first", 1) { s, a, c in s.replacingFirst(try c.rubyText(a[0]), with: "") },
        stringArg("remove_last", 1) { s, a, c in s.replacingLast(try c.rubyText(a[0]), with: "") },
        stringArg("replace", 1...2) { s, a, c in try s.replacingAll(try c.rubyText(a[0]), with: try c.rubyText(a[1]), limit: c.limits.stringBytes) },
        stringArg("replace_first", 1...2) { s, a, c in s.replacingFirst(try c.rubyText(a[0]), with: try c.rubyText(a[1])) },
        stringArg("replace_last", 2) { s, a, c in s.replacingLast(try c.rubyText(a[0]), with: try c.rubyText(a[1])) },
        LiquidFilter("truncate", arguments: 0...2) { input, args, context in
            if input.isNil { return .nil }
            let s = try context.rubyText(input)
            let length = args.has(0) ? try toInteger(args[0]) : 50
            let ellipsis = args.has(1) ? try context.rubyText(args[1]) : "..."
            // Short strings are returned whole without counting characters one by one.
            if s.utf8.count <= length { return .string(s) }
            // Ruby counts code points (a combining accent, each part of an emoji, is one).
            return .string(s.withBytes { bytes -> String in
                // Only as far as needed: a string longer than `length` code points is cut.
                if length >= 0 && CodePoints.byteOffset(of: length, in: bytes) == bytes.count { return s }
                let (room, overflow) = length.subtractingReportingOverflow(ellipsis.codePointCount)
                let keep = overflow ? 0 : max(0, room)
                let cut = CodePoints.byteOffset(of: keep, in: bytes)
                var out = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<cut]), as: UTF8.self)
                out += ellipsis
                return out
            })
        },
        LiquidFilter("truncatewords", arguments: 0...2) { input, args, context in
            if input.isNil { return .nil }
            let s = try context.rubyText(input)
            var words = args.has(0) ? try toInteger(args[0]) : 15
            let ellipsis = args.has(1) ? try context.rubyText(args[1]) : "..."
            if words <= 0 { words = 1 }
            return .string(truncateWords(s, words: words, ellipsis: ellipsis))
        },
        LiquidFilter("split", arguments: 1...1) { input, args, context in
            let s = try context.rubyText(input)
            let sep = try context.rubyText(args[0])
            return .array(try rubySplitValues(s, sep, limit: context.limits.arrayElements))
        },
        LiquidFilter("slice", arguments: 1...2) { input, args, context in
            let start = try toInteger(args[0])
            let length = args[1].isNil ? 1 : try toInteger(args[1])
            if case .array(let a) = input {
                return rubySlice(a, start, length).map { .array($0) } ?? .nil
            }
            // Ruby's `String#slice(start, length)` by code points, on the bytes.
            let s = try context.rubyText(input)
            return s.withBytes { bytes -> LiquidValue in
                let n = CodePoints.count(bytes)
                var from = start
                if from < 0 { from = from.addingReportingOverflow(n).partialValue }
                if from < 0 || from > n || length < 0 { return .nil }
                return .string(CodePoints.substring(bytes, from: from, length: min(length, n - from)))
            }
        },
        LiquidFilter("size") { input, _, _ in
            switch input {
            case .string(let s): return .int(s.codePointCount)  // code points, as Ruby counts
            case .array(let a): return .int(a.count)
            case .object(let o): return .int(o.count)
            case .range(let lo, let hi): return .int(rangeSize(lo, hi))
            case .int: return .int(8)  // Ruby's Integer#size: bytes in a machine word
            case .bigInt(let b): return .int(b.rubySize)
            default: return .int(0)
            }
        },
    ]

    static func string(_ name: String, _ f: @escaping @Sendable (String) -> String) -> LiquidFilter {
        LiquidFilter(name) { input, _, context in .string(f(try context.rubyText(input))) }
    }

    /// `upcase`/`downcase`; as an output's last filter it writes into the output directly.
    static func caseFilter(_ name: String, upper: Bool) -> LiquidFilter {
        LiquidFilter(name, { input, _, context in
            let s = try context.rubyText(input)
            return .string(asciiCase(s, upper: upper) ?? caseMapped(s, upper: upper))
        }, appendToOutput: { input, out in appendASCIICase(input, upper: upper, to: &out) })
    }

    static func stringArg(_ name: String, _ n: Int, _ f: @escaping @Sendable (String, FilterArguments, RenderContext) throws -> String) -> LiquidFilter {
        stringArg(name, n...n, f)
    }

    static func stringArg(_ name: String, _ n: ClosedRange<Int>, _ f: @escaping @Sendable (String, FilterArguments, RenderContext) throws -> String) -> LiquidFilter {
        LiquidFilter(name, arguments: n) { input, args, context in .string(try f(try context.rubyText(input), args, context)) }
    }
}

/// Upper- or lower-cases an ASCII string byte by byte; `nil` when it has other characters
/// (Unicode case mapping applies then). An unchanged string is returned as is.
func asciiCase(_ s: String, upper: Bool) -> String? {
    var changed = false
    let ascii = s.withBytes { bytes -> Bool in
        for b in bytes {
            if b >= 0x80 { return false }
            if upper ? (b &- 0x61 < 26) : (b &- 0x41 < 26) { changed = true }
        }
        return true
    }
    guard ascii else { return nil }
    guard changed else { return s }
    return s.withBytes { bytes in
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            var i = 0
            for b in bytes {
                buffer[i] = upper ? (b &- 0x61 < 26 ? b &- 32 : b) : (b &- 0x41 < 26 ? b &+ 32 : b)
                i += 1
            }
            return i
        }
    }
}

/// `upcase`/`downcase` of an ASCII string appended to an output; `false` for anything else.
func appendASCIICase(_ input: LiquidValue, upper: Bool, to out: inout [UInt8]) -> Bool {
    guard case .string(let s) = input else { return false }
    let done = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
        guard !bytes.contains(where: { $0 >= 0x80 }) else { return false }
        // Appended whole, then mapped in place: no capacity check per byte.
        let start = out.count
        out.append(contentsOf: bytes)
        out.withUnsafeMutableBufferPointer { buffer in
            var i = start
            let n = buffer.count
            if upper {
                while i < n { let b = buffer[i]; if b &- 0x61 < 26 { buffer[i] = b &- 32 }; i += 1 }
            } else {
                while i < n { let b = buffer[i]; if b &- 0x41 < 26 { buffer[i] = b &+ 32 }; i += 1 }
            }
        }
        return true
    }
    return done ?? false
}

/// `capitalize` for an ASCII string; `nil` otherwise.
func asciiCapitalize(_ s: String) -> String? {
    s.withBytes { bytes in
        guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            var i = 0
            for b in bytes {
                buffer[i] = i == 0 ? (b >= 0x61 && b <= 0x7A ? b - 32 : b) : (b >= 0x41 && b <= 0x5A ? b + 32 : b)
                i += 1
            }
            return i
        }
    }
}

/// Ruby's `slice(start, length)` on an array: negative start from the end; `nil` when out of range.
func rubySlice<T>(_ items: [T], _ start: Int, _ length: Int) -> [T]? {
    var s = start
    if s < 0 { s += items.count }
    if s < 0 || s > items.count || length < 0 { return nil }
    let end = length > items.count - s ? items.count : s + length
    return Array(items[s..<end])
}

/// Ruby's `String#split` with a string separator: a single space splits on runs of
/// whitespace; an empty separator splits into characters; trailing empty strings are dropped.
/// More than `limit` parts is ``LiquidLimit/arrayElements(_:)``, found before they are all made.
func rubySplit(_ s: String, _ sep: String, limit: Int = .max) throws -> [String] {
    let tooMany = LiquidError.Reason.limitExceeded(.arrayElements(limit))
    var parts: [String] = []
    if sep == " " {
        // Ruby's awk-style split: runs of ASCII whitespace (space, \t, \n, \v, \f, \r).
        for part in s.utf8.split(whereSeparator: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }) {
            if parts.count >= limit { throw tooMany }
            parts.append(String(decoding: part, as: UTF8.self))
        }
    } else if sep.isEmpty {
        for ch in s.unicodeScalars {
            if parts.count >= limit { throw tooMany }
            parts.append(String(ch))
        }
    } else {
        let finder = ByteFinder(sep)
        parts = try s.withBytes { text in
            var parts: [String] = []
            var last = 0
            while true {
                let hit = finder.next(in: text, from: last)
                if parts.count >= limit { throw tooMany }
                parts.append(String(decoding: UnsafeBufferPointer(rebasing: text[last..<(hit ?? text.count)]), as: UTF8.self))
                guard let hit else { break }
                last = hit + finder.needle.count
            }
            return parts
        }
    }
    while let last = parts.last, last.isEmpty { parts.removeLast() }
    return parts
}

/// ``rubySplit(_:_:limit:)`` as string values, made directly (no array of strings between):
/// the `split` filter's work.
func rubySplitValues(_ s: String, _ sep: String, limit: Int) throws -> [LiquidValue] {
    guard sep == " " else { return try rubySplit(s, sep, limit: limit).map { .string($0) } }
    let tooMany = LiquidError.Reason.limitExceeded(.arrayElements(limit))
    return try s.withBytes { bytes in
        var parts: [LiquidValue] = []
        var i = 0
        let n = bytes.count
        @inline(__always) func blank(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
        while true {
            while i < n && blank(bytes[i]) { i += 1 }
            if i == n { break }
            let start = i
            while i < n && !blank(bytes[i]) { i += 1 }
            if parts.count >= limit { throw tooMany }
            parts.append(.string(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)))
        }
        return parts
    }
}

/// CGI.escapeHTML: `& < > " '` as entities; a string without them is returned as is.
func htmlEscape(_ s: String) -> String {
    // (Over the contiguous bytes: a generic scan of the UTF-8 view costs several times more.)
    // (Most bytes are above `>`: one comparison passes them.)
    if !s.withBytes({ $0.contains(where: { $0 <= 0x3E && ($0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27) }) }) { return s }
    var s = s
    return s.withUTF8 { bytes in
        var out = ""
        var runStart = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let rep: String
            switch bytes[i] {
            case UInt8(ascii: "&"): rep = "&amp;"
            case UInt8(ascii: "<"): rep = "&lt;"
            case UInt8(ascii: ">"): rep = "&gt;"
            case UInt8(ascii: "\""): rep = "&quot;"
            case UInt8(ascii: "'"): rep = "&#39;"
            default: i += 1; continue
            }
            if out.isEmpty { out.reserveCapacity(n + 16) }
            if i > runStart { out += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<i]), as: UTF8.self) }
            out += rep
            i += 1
            runStart = i
        }
        if runStart == 0 { return String(decoding: bytes, as: UTF8.self) }
        if n > runStart { out += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<n]), as: UTF8.self) }
        return out
    }
}

/// Escapes like `escape` but leaves existing entities (`&amp;`, `&#39;`) alone; as in the
/// reference, only named and decimal entities count (`&#x27;` is escaped).
func htmlEscapeOnce(_ s: String) -> String {
    let bytes = Array(s.utf8)
    var out = ""
    out.reserveCapacity(bytes.count)
    var i = 0
    var plainStart = 0
    func flush(_ end: Int) { if end > plainStart { out += String(decoding: bytes[plainStart..<end], as: UTF8.self) } }
    while i < bytes.count {
        let b = bytes[i]
        switch b {
        case UInt8(ascii: "&"):
            var j = i + 1
            if j < bytes.count && bytes[j] == UInt8(ascii: "#") {
                j += 1
                let start = j
                while j < bytes.count && isDigit(bytes[j]) { j += 1 }
                if j > start && j < bytes.count && bytes[j] == UInt8(ascii: ";") { i = j + 1; continue }
            } else {
                let start = j
                while j < bytes.count && ((bytes[j] | 0x20) >= 0x61 && (bytes[j] | 0x20) <= 0x7A) { j += 1 }
                if j > start && j < bytes.count && bytes[j] == UInt8(ascii: ";") { i = j + 1; continue }
            }
            flush(i); out += "&amp;"; i += 1; plainStart = i
        case UInt8(ascii: "<"): flush(i); out += "&lt;"; i += 1; plainStart = i
        case UInt8(ascii: ">"): flush(i); out += "&gt;"; i += 1; plainStart = i
        case UInt8(ascii: "\""): flush(i); out += "&quot;"; i += 1; plainStart = i
        case UInt8(ascii: "'"): flush(i); out += "&#39;"; i += 1; plainStart = i
        default: i += 1
        }
    }
    flush(bytes.count)
    return out
}

/// `CGI.escape`: unreserved characters kept, space as `+`, everything else `%XX`.
func urlEncode(_ s: String) -> String {
    percentEncode(s, keeping: unreservedURLByteSet, spaceAsPlus: true)
}

/// ``unreservedURLBytes`` as a table.
public let unreservedURLByteSet = ByteSet(unreservedURLBytes)

/// RFC 3986's unreserved characters: letters, digits, `-_.~`.
public let unreservedURLBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~".utf8)

/// Percent-encodes every UTF-8 byte of `s` not in `keeping` as `%XX` (a space as `+` when
/// `spaceAsPlus`): the encoder behind `url_encode` and dialects' URL filters.
public func percentEncode(_ s: String, keeping: Set<UInt8>, spaceAsPlus: Bool = false) -> String {
    percentEncode(s, keeping: ByteSet(keeping), spaceAsPlus: spaceAsPlus)
}

/// `CGI.unescape`: `+` as space, `%XX` decoded.
func urlDecode(_ s: String) -> String {
    @inline(__always) func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }
    return s.withBytes { u in
        var bytes: [UInt8] = []
        bytes.reserveCapacity(u.count)
        var i = 0
        let n = u.count
        while i < n {
            let c = u[i]
            if c == UInt8(ascii: "+") { bytes.append(0x20); i += 1; continue }
            if c == UInt8(ascii: "%"), i + 2 < n, let hi = nibble(u[i + 1]), let lo = nibble(u[i + 2]) {
                bytes.append(hi << 4 | lo); i += 3; continue
            }
            bytes.append(c); i += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

func base64Decode(_ s: String, urlSafe: Bool) throws -> String {
    var t = s
    if urlSafe { t = t.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") }
    while t.utf8.count % 4 != 0 { t += "=" }
    guard let data = Data(base64Encoded: t) else { throw LiquidError.Reason.argument("invalid base64 provided to base64_decode") }
    return String(decoding: data, as: UTF8.self)
}

/// Removes `<script>...</script>`, `<!--...-->` and `<style>...</style>` with their content
/// (case-sensitive, as the reference's patterns are, and in one left-to-right pass, as its
/// union of them matches), then every `<...>` tag; a `<` with no closing `>` stays. Linear in
/// the text, whatever it holds.
func stripHTML(_ s: String) -> String {
    let blocks: [(open: [UInt8], close: ByteFinder)] = [
        (Array("<script".utf8), ByteFinder("</script>")), (Array("<!--".utf8), ByteFinder("-->")), (Array("<style".utf8), ByteFinder("</style>")),
    ]
    return s.withBytes { text -> String in
        guard text.contains(UInt8(ascii: "<")) else { return s }
        // Pass 1: the blocks. A block kind with no closer after one position has none after
        // any later one either: it is not searched for again.
        var stage: [UInt8] = []
        stage.reserveCapacity(text.count)
        var closed = [true, true, true]
        var i = 0
        var copied = 0
        while i < text.count {
            guard text[i] == UInt8(ascii: "<") else { i += 1; continue }
            var skipTo: Int?
            for (k, block) in blocks.enumerated() where closed[k] {
                guard text.count - i >= block.open.count, memcmp(text.baseAddress! + i, block.open, block.open.count) == 0 else { continue }
                if let end = block.close.next(in: text, from: i + block.open.count) {
                    skipTo = end + block.close.needle.count
                    break
                }
                closed[k] = false
            }
            if let skipTo {
                stage.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<i]))
                i = skipTo
                copied = skipTo
            } else {
                i += 1
            }
        }
        stage.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<text.count]))
        // Pass 2: every `<...>`.
        var out: [UInt8] = []
        out.reserveCapacity(stage.count)
        var j = 0
        while j < stage.count {
            guard let lt = stage[j...].firstIndex(of: UInt8(ascii: "<")), let gt = stage[lt...].firstIndex(of: UInt8(ascii: ">")) else { break }
            out.append(contentsOf: stage[j..<lt])
            j = gt + 1
        }
        if j < stage.count { out.append(contentsOf: stage[j...]) }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    func trimmingRubyWhitespace(leading: Bool, trailing: Bool) -> String {
        // Ruby's whitespace: NUL, \t, \n, \v, \f, \r and space; all ASCII, so bytes will do.
        withBytes { bytes in
            @inline(__always) func ws(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) || b == 0 }
            var a = 0, b = bytes.count
            if leading { while a < b && ws(bytes[a]) { a += 1 } }
            if trailing { while b > a && ws(bytes[b - 1]) { b -= 1 } }
            if a == 0 && b == bytes.count { return self }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[a..<b]), as: UTF8.self)
        }
    }

    /// Ruby's `gsub` with a string pattern; a result over `limit` bytes is
    /// ``LiquidLimit/stringBytes(_:)``, found before it is built.
    func replacingAll(_ target: String, with replacement: String, limit: Int = .max) throws -> String {
        let tooLarge = LiquidError.Reason.limitExceeded(.stringBytes(limit))
        if target.isEmpty {
            // Ruby's gsub with an empty pattern inserts between every character.
            let (insertions, o1) = replacement.utf8.count.multipliedReportingOverflow(by: count + 1)
            let (total, o2) = insertions.addingReportingOverflow(utf8.count)
            if o1 || o2 || total > limit { throw tooLarge }
            var out = replacement
            for ch in unicodeScalars { out.unicodeScalars.append(ch); out += replacement }
            return out
        }
        let finder = ByteFinder(target)
        if replacement.utf8.contains(UInt8(ascii: "\\")) {
            return try withBytes { text -> String in
                let hits = finder.all(in: text)
                if hits.isEmpty { return self }
                return try String.substituting(text, hits: hits, length: finder.needle.count, replacement: Array(replacement.utf8), limit: limit)
            }
        }
        return try withBytes { text -> String in
            let hits = finder.all(in: text)
            if hits.isEmpty { return self }
            let (growth, o1) = (replacement.utf8.count - target.utf8.count).multipliedReportingOverflow(by: hits.count)
            let (total, o2) = growth.addingReportingOverflow(text.count)
            if o1 || o2 || total > limit { throw tooLarge }
            var out: [UInt8] = []
            out.reserveCapacity(total)
            var last = 0
            for hit in hits {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[last..<hit]))
                appendUTF8(replacement, to: &out)
                last = hit + finder.needle.count
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[last..<text.count]))
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Ruby's `sub` with a string pattern.
    func replacingFirst(_ target: String, with replacement: String) -> String {
        if target.isEmpty && !replacement.utf8.contains(UInt8(ascii: "\\")) { return replacement + self }
        return withBytes { text -> String in
            let hit: Int
            if target.isEmpty { hit = 0 } else {
                guard let found = ByteFinder(target).next(in: text, from: 0) else { return self }
                hit = found
            }
            if replacement.utf8.contains(UInt8(ascii: "\\")) {
                return (try? String.substituting(text, hits: [hit], length: target.utf8.count, replacement: Array(replacement.utf8), limit: .max)) ?? self
            }
            return spliced(text, hit, target.utf8.count, replacement)
        }
    }

    /// `text` with each match (`length` bytes at each of `hits`) replaced as Ruby's `gsub` and
    /// `sub` replace with a string: `\\0` and `\\&` are the match, `` \\` `` what precedes it,
    /// `\\'` what follows, `\\\\` one backslash, `\\1`…`\\9` nothing (a string pattern has no
    /// groups); any other backslash stays as written.
    static func substituting(_ text: UnsafeBufferPointer<UInt8>, hits: [Int], length: Int, replacement: [UInt8], limit: Int) throws -> String {
        var out: [UInt8] = []
        var last = 0
        for hit in hits {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[last..<hit]))
            var i = 0
            while i < replacement.count {
                let c = replacement[i]
                guard c == UInt8(ascii: "\\"), i + 1 < replacement.count else { out.append(c); i += 1; continue }
                let e = replacement[i + 1]
                switch e {
                case UInt8(ascii: "0"), UInt8(ascii: "&"): out.append(contentsOf: UnsafeBufferPointer(rebasing: text[hit..<(hit + length)]))
                case UInt8(ascii: "`"): out.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<hit]))
                case UInt8(ascii: "'"): out.append(contentsOf: UnsafeBufferPointer(rebasing: text[(hit + length)..<text.count]))
                case UInt8(ascii: "\\"): out.append(e)
                case UInt8(ascii: "1")...UInt8(ascii: "9"): break
                default: out.append(c); out.append(e)
                }
                i += 2
                if out.count > limit { throw LiquidError.Reason.limitExceeded(.stringBytes(limit)) }
            }
            last = hit + length
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[last..<text.count]))
        if out.count > limit { throw LiquidError.Reason.limitExceeded(.stringBytes(limit)) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The reference's `replace_last` (`rindex`, then a splice): the last occurrence, which may
    /// overlap one before it.
    func replacingLast(_ target: String, with replacement: String) -> String {
        if target.isEmpty { return self + replacement }
        return withBytes { text -> String in
            // The first occurrence of the reversed target in the reversed text is the last one.
            let reversedText = Array(text.reversed())
            let finder = ByteFinder(String(decoding: target.utf8.reversed(), as: UTF8.self))
            guard finder.needle.count == target.utf8.count,
                  let hit = reversedText.withUnsafeBufferPointer({ finder.next(in: $0, from: 0) }) else { return self }
            return spliced(text, text.count - hit - target.utf8.count, target.utf8.count, replacement)
        }
    }

    /// `text` with `count` bytes at `offset` replaced by `replacement`.
    private func spliced(_ text: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int, _ replacement: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.count - count + replacement.utf8.count)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<offset]))
        appendUTF8(replacement, to: &out)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[(offset + count)..<text.count]))
        return String(decoding: out, as: UTF8.self)
    }
}
