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

    /// The offset of the first byte of `bytes` that does not start or continue a valid UTF-8
    /// sequence (a stray continuation byte, a truncated or overlong sequence, a surrogate),
    /// or `nil` when all of it is valid.
    public static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
