import Foundation

/// A whitespace-separated part of a Braze tag's markup and its UTF-8 offset in the template.
struct TagMarkupChunk {
    var text: String
    var offset: Int
}

/// Splits a Braze tag's markup at whitespace outside `{{ }}`, `{% %}`, quotes and JSON braces
/// (`{% connected_content URL :headers {"a": "b c"} %}`, `{% catalog_items {{name}} 12 %}`).
func splitTagMarkup(_ markup: Substring, baseOffset: Int) -> [TagMarkupChunk] {
    let bytes = Array(markup.utf8)
    var chunks: [TagMarkupChunk] = []
    var i = 0
    func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }
    while i < bytes.count {
        while i < bytes.count && isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count else { break }
        let start = i
        var braces = 0
        var liquid = 0
        var quote: UInt8? = nil
        while i < bytes.count {
            let b = bytes[i]
            if let q = quote {
                if b == q { quote = nil }
                i += 1
                continue
            }
            if b == UInt8(ascii: "{") && i + 1 < bytes.count && (bytes[i + 1] == UInt8(ascii: "{") || bytes[i + 1] == UInt8(ascii: "%")) {
                liquid += 1; i += 2; continue
            }
            if liquid > 0 && (b == UInt8(ascii: "}") || b == UInt8(ascii: "%")) && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "}") {
                liquid -= 1; i += 2; continue
            }
            if liquid > 0 { i += 1; continue }
            if b == UInt8(ascii: "{") { braces += 1 }
            if b == UInt8(ascii: "}") { braces = max(0, braces - 1) }
            if braces > 0 && (b == UInt8(ascii: "\"")) { quote = b; i += 1; continue }
            if braces == 0 && isSpace(b) { break }
            i += 1
        }
        chunks.append(TagMarkupChunk(text: String(decoding: bytes[start..<i], as: UTF8.self), offset: baseOffset + start))
    }
    return chunks
}

/// Braze tag markup, read as the dialect's own tags read it.
public enum BrazeTagMarkup {
    /// The parts of a tag's markup: split at whitespace outside `{{ }}`, `{% %}`, quotes and
    /// JSON braces (`games {{ wishlist[0] | default: '1' }} :rerender` is three parts).
    public static func parts(_ markup: String) -> [String] {
        splitTagMarkup(Substring(markup), baseOffset: 0).map(\.text)
    }
}
