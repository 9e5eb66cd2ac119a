import Liquid
import Testing

/// Byte order marks and invalid UTF-8 in source text and JSON documents.
@Suite struct SourceTextTests {
    @Test func aByteOrderMarkIsDropped() throws {
        #expect(try SourceText.decode([0xEF, 0xBB, 0xBF] + Array("{{ x }}".utf8), name: "t") == "{{ x }}")
        #expect(try SourceText.decode(Array("a\u{FEFF}b".utf8), name: "t") == "a\u{FEFF}b", "only a leading mark is dropped")
    }

    @Test(arguments: [
        ([0x61, 0xFF], 0xFF as UInt8, 1, 2),  // a byte that never starts a sequence
        ([0x0A, 0x61, 0x80], 0x80, 2, 2),  // a stray continuation byte
        ([0xC3], 0xC3, 1, 1),  // a sequence cut short by the end
        ([0x61, 0xE2, 0x82, 0x61], 0xE2, 1, 2),  // a sequence cut short by ASCII
        ([0xC0, 0xAF], 0xC0, 1, 1),  // overlong
        ([0xED, 0xA0, 0x80], 0xED, 1, 1),  // a UTF-16 surrogate
        ([0xEF, 0xBB, 0xBF, 0xC3, 0xA9, 0xFF], 0xFF, 1, 2),  // after a mark and an é: columns in characters
    ] as [([UInt8], UInt8, Int, Int)])
    func invalidUTF8IsAnErrorAtItsPosition(bytes: [UInt8], byte: UInt8, line: Int, column: Int) {
        do {
            _ = try SourceText.decode(bytes, name: "t.liquid")
            Issue.record("\(bytes) decoded")
        } catch let error as LiquidError {
            #expect(error.reason == .invalidUTF8(byte: byte))
            #expect(error.location == SourceLocation(line: line, column: column))
            #expect(error.templateName == "t.liquid")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func invalidUTF8InAJSONStringIsASyntaxError() throws {
        for (bytes, column) in [
            (Array(#"{"a": "x"#.utf8) + [0xFF] + Array(#""}"#.utf8), 9),  // in a value
            (Array(#"{"a": "\n"#.utf8) + [0xC3] + Array(#""}"#.utf8), 10),  // after an escape
            (Array(#"{"k"#.utf8) + [0x80] + Array(#"": 1}"#.utf8), 4),  // in a key
        ] {
            var parser = JSONValueParser(bytes: bytes)
            #expect {
                _ = try parser.parse()
            } throws: { error in
                guard let e = error as? JSONValueParser.SyntaxError else { return false }
                return e.line == 1 && e.column == column && e.message.hasPrefix("invalid UTF-8")
            }
        }
        var valid = JSONValueParser(bytes: Array(#"{"é": "ü\n€"}"#.utf8))
        #expect(try valid.parse() == ["é": "ü\n€"])
    }
}

extension SourceTextTests {
    @Test func aJSONDocumentMayStartWithAByteOrderMark() throws {
        var parser = JSONValueParser(bytes: [0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8))
        #expect(try parser.parse() == ["a": 1])
        #expect(try JSONValueParser.parse("\u{FEFF}[1]") == [1])
    }
}
