import Foundation
@testable import Liquid
import Testing

/// The byte-level string filters against simple reference implementations (scalar arrays,
/// Foundation, Swift's case mapping) over many generated strings: ASCII, two-, three- and
/// four-byte characters, lengths across the eight-byte steps of the counting loop.
@Suite struct ByteFilterTests {
    /// Deterministic strings from a small alphabet of every UTF-8 length.
    static let samples: [String] = {
        let alphabet: [String] = ["a", "Z", " ", "\n", "\r", "\t", "é", "ß", "Σ", "ǅ", "東", "☕", "–", "😀", "👨‍👩‍👧", "İ", "ﬁ", "<", "&", "\"", "0", "."]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        return (0..<400).map { i in (0..<(i % 37)).map { _ in alphabet[next() % alphabet.count] }.joined() }
    }()

    @Test func codePointsAreCountedAndFound() {
        for s in Self.samples {
            let scalars = Array(s.unicodeScalars)
            #expect(s.codePointCount == scalars.count)
            s.withBytes { bytes in
                for k in [0, 1, 3, scalars.count / 2, scalars.count, scalars.count + 2] {
                    let expected = k >= scalars.count ? bytes.count : String(String.UnicodeScalarView(scalars[..<k])).utf8.count
                    #expect(CodePoints.byteOffset(of: k, in: bytes) == expected)
                }
            }
        }
    }

    @Test func truncateAndSliceCountCodePoints() throws {
        for s in Self.samples {
            let scalars = Array(s.unicodeScalars)
            func text(_ part: ArraySlice<Unicode.Scalar>) -> String { String(String.UnicodeScalarView(part)) }
            let truncated = try render("{{ s | truncate: 7, '~' }}", ["s": .string(s)])
            #expect(truncated == (scalars.count <= 7 ? s : text(scalars[..<6]) + "~"))
            let sliced = try render("{{ s | slice: 2, 5 }}", ["s": .string(s)])
            #expect(sliced == (scalars.count < 2 ? "" : text(scalars[2..<min(scalars.count, 7)])))
            let fromEnd = try render("{{ s | slice: -3, 2 }}", ["s": .string(s)])
            #expect(fromEnd == (scalars.count < 3 ? "" : text(scalars[(scalars.count - 3)..<(scalars.count - 1)])))
        }
    }

    @Test func caseMappingMatchesUnicode() {
        for s in Self.samples {
            #expect(caseMapped(s, upper: true) == s.uppercased())
            #expect(caseMapped(s, upper: false) == s.lowercased())
        }
        #expect(caseMapped("éLAN ß", upper: false, capitalizeFirst: true) == "Élan ß")
    }

    @Test func base64AndPercentEncodingMatchFoundation() {
        for s in Self.samples {
            let standard = Data(s.utf8).base64EncodedString()
            #expect(base64Encode(s, urlSafe: false) == standard)
            #expect(base64Encode(s, urlSafe: true) == standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))
            var expected = ""
            for b in s.utf8 {
                if unreservedURLBytes.contains(b) { expected.unicodeScalars.append(Unicode.Scalar(b)) } else if b == 0x20 { expected += "+" } else { expected += String(format: "%%%02X", b) }
            }
            #expect(percentEncode(s, keeping: unreservedURLByteSet, spaceAsPlus: true) == expected)
        }
    }

    @Test func newlinesAndWhitespace() throws {
        #expect(try render("{{ s | strip_newlines }}", ["s": "a\nb\r\nc\rd"]) == "abc\rd")
        #expect(try render("{{ s | newline_to_br }}", ["s": "a\nb\r\nc\rd"]) == "a<br />\nb<br />\nc\rd")
        #expect(try render("[{{ s | squish }}]", ["s": " \t a  b\n\nc \u{00A0}d \u{0} "]) == "[a b c \u{00A0}d]")
        #expect(try render("[{{ s | strip }}]", ["s": "\0 \t x \n\0"]) == "[x]")
    }
}
