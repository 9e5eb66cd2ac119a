/// Ruby counts a string's characters as code points. These work on UTF-8 bytes directly (a
/// code point starts at every byte that is not a continuation byte, `10xxxxxx`), so that
/// `size`, `slice` and `truncate` of a long string neither decode it nor copy it into an
/// array of scalars.
enum CodePoints {
    /// The number of code points in `bytes`.
    @inline(__always)
    static func count(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        // Eight bytes at a time: a continuation byte has its top bits 10.
        var continuation = 0
        var i = 0
        let n = bytes.count
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                // High bit set and the next bit clear, per byte.
                let marks = w & ~(w << 1) & 0x8080_8080_8080_8080
                continuation &+= marks.nonzeroBitCount
                i += 8
            }
        }
        while i < n {
            if bytes[i] & 0xC0 == 0x80 { continuation += 1 }
            i += 1
        }
        return n - continuation
    }

    /// The byte offset where code point `index` starts (`bytes.count` when there are not that
    /// many). `index` must not be negative.
    @inline(__always)
    static func byteOffset(of index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var seen = 0
        var i = 0
        let n = bytes.count
        while i < n {
            if bytes[i] & 0xC0 != 0x80 {
                if seen == index { return i }
                seen += 1
            }
            i += 1
        }
        return n
    }

    /// The code points `start..<start+length` of `s` (clamped to its end), as Ruby's
    /// `String#slice(start, length)` with `start` already made non-negative.
    static func substring(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, length: Int) -> String {
        let a = byteOffset(of: start, in: bytes)
        let rest = UnsafeBufferPointer(rebasing: bytes[a...])
        let b = a + byteOffset(of: length, in: rest)
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[a..<b]), as: UTF8.self)
    }
}

extension String {
    /// The number of code points (Ruby's `String#length`).
    var codePointCount: Int { withBytes { CodePoints.count($0) } }
}
