#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Source text read from bytes: templates, content blocks, campaign files, JSON documents.
///
/// A UTF-8 byte order mark at the start is dropped (editors on Windows write one), and
/// invalid UTF-8 is an error at its line and column: decoding it to U+FFFD would put
/// replacement characters into every payload without a word.
public enum SourceText {
    /// The text of `bytes`, without a leading byte order mark.
    ///
    /// - Parameters:
    ///   - bytes: the file's bytes.
    ///   - name: the file's name, for the error.
    /// - Throws: ``LiquidError`` with reason ``LiquidError/Reason/invalidUTF8(byte:)`` at the
    ///   line and column (in characters, after the byte order mark) of the first invalid byte.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, name: String?) throws -> String {
        var array = Array(bytes)
        if array.starts(with: [0xEF, 0xBB, 0xBF]) { array.removeFirst(3) }
        // Decoding repairs invalid UTF-8 (quickly); the text is valid when the repair changed
        // nothing, which one comparison of the bytes tells.
        var text = String(decoding: array, as: UTF8.self)
        let unchanged = text.utf8.count == array.count && text.withUTF8 { decoded in
            array.withUnsafeBufferPointer { original in
                original.isEmpty || memcmp(decoded.baseAddress!, original.baseAddress!, original.count) == 0
            }
        }
        if unchanged { return text }
        let offset = array.withUnsafeBufferPointer { firstInvalidUTF8(in: $0) } ?? array.count
        let before = String(decoding: array[..<offset], as: UTF8.self)
        throw LiquidError(.invalidUTF8(byte: offset < array.count ? array[offset] : 0),
                          location: SourceLocation(utf8Offset: before.utf8.count, in: before), templateName: name)
    }

    /// The offset of the first byte of `bytes` that does not start a valid UTF-8 sequence (a
    /// stray continuation byte, the lead byte of a truncated or overlong sequence or of a
    /// surrogate), or `nil` when all of it is valid. ASCII is read eight bytes at a time.
    public static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let p = bytes.baseAddress else { return nil }
        let n = bytes.count
        var i = 0
        while i < n {
            while i + 8 <= n, UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
            if i >= n { break }
            let b0 = p[i]
            if b0 < 0x80 { i += 1; continue }
            // Well-formed sequences (Unicode, table 3-7).
            if b0 < 0xC2 { return i }
            if b0 < 0xE0 {
                guard i + 1 < n, p[i + 1] & 0xC0 == 0x80 else { return i }
                i += 2
            } else if b0 < 0xF0 {
                guard i + 2 < n else { return i }
                let b1 = p[i + 1]
                let low: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80, high: UInt8 = b0 == 0xED ? 0x9F : 0xBF
                guard b1 >= low, b1 <= high, p[i + 2] & 0xC0 == 0x80 else { return i }
                i += 3
            } else if b0 < 0xF5 {
                guard i + 3 < n else { return i }
                let b1 = p[i + 1]
                let low: UInt8 = b0 == 0xF0 ? 0x90 : 0x80, high: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
                guard b1 >= low, b1 <= high, p[i + 2] & 0xC0 == 0x80, p[i + 3] & 0xC0 == 0x80 else { return i }
                i += 4
            } else {
                return i
            }
        }
        return nil
    }
}
