import Liquid
import LiquidTestSupport
import Testing

@Suite struct LiquidValueTests {
    @Test(arguments: [
        (1.0, "1.0"), (0.1 + 0.2, "0.30000000000000004"), (1e-05, "1.0e-05"), (0.0001, "0.0001"),
        (1e20, "1.0e+20"), (1e16, "1.0e+16"), (1e15, "1.0e+15"), (1e14, "100000000000000.0"), (1234567890123456.8, "1234567890123456.8"), (9007199254740992.0, "9.007199254740992e+15"), (-2.5, "-2.5"),
        (123456.789, "123456.789"), (-0.0, "-0.0"),
    ])
    func floatsPrintLikeRuby(_ value: Double, _ expected: String) {
        #expect(rubyFloatString(value) == expected)
    }

    @Test func jsonKeepsKeyOrder() throws {
        let value = try JSONValueParser.parse(#"{"foo": 1, "bar": {"z": [1, 2.5, "x"], "a": null}, "baz": true}"#)
        guard case .object(let o) = value else { Issue.record("not an object"); return }
        #expect(o.keys == ["foo", "bar", "baz"])
        #expect(value.jsonString == #"{"foo":1,"bar":{"z":[1,2.5,"x"],"a":null},"baz":true}"#)
        #expect(try render("{% for p in v %}{{ p[0] }}{% endfor %}", ["v": value]) == "foobarbaz")
    }

    @Test func jsonErrorsHavePositions() {
        #expect(throws: JSONValueParser.SyntaxError.self) { try JSONValueParser.parse("{\n  \"a\": }") }
        do { _ = try JSONValueParser.parse("{\n  \"a\": }") } catch let e as JSONValueParser.SyntaxError {
            #expect(e.line == 2 && e.column == 8)
        } catch { Issue.record("wrong error \(error)") }
    }

    /// Every prefix of a document, and the document inside a larger buffer, parses or fails
    /// with a syntax error (never reads past its range).
    @Test func truncatedDocumentsAndRangesInBuffers() throws {
        let doc = #"{"a": [1, -2.5e3, "x\"y\u00e9\ud83d\ude00", true, false, null], "b": {"c": "dé"}, "d": 12345678901234567890}"#
        let full = try JSONValueParser.parse(doc)
        #expect(full.property("a").arrayValue?.count == 6)
        let bytes = Array(doc.utf8)
        for n in 0..<bytes.count {
            #expect(throws: JSONValueParser.SyntaxError.self) { var p = JSONValueParser(bytes: bytes[0..<n]); _ = try p.parse() }
        }
        // The same document as one line of a larger buffer: only its range is read.
        let buffer = Array("xx\n".utf8) + bytes + Array("\n[1,".utf8)
        var inPlace = JSONValueParser(buffer: buffer, range: 3..<(3 + bytes.count))
        #expect(try inPlace.parse() == full)
        var cut = JSONValueParser(buffer: buffer, range: 3..<(3 + bytes.count - 1))
        do { _ = try cut.parse(); Issue.record("a cut document parsed") } catch let e as JSONValueParser.SyntaxError {
            #expect(e.line == 1 && e.column == bytes.count)
        }
    }

    @Test func renderingValues() throws {
        #expect(try render("{{ a }}|{{ r }}|{{ n }}|{{ f }}|{{ b }}", ["a": [1, [2, "x"]], "r": .range(1, 3), "n": nil, "f": 2.0, "b": false]) == "12x|1..3||2.0|false")
    }

    @Test func objectSubscriptKeepsOrderAndRemoves() {
        var o = LiquidObject()
        for i in 0..<20 { o["k\(i)"] = .int(i) }
        o["k3"] = nil
        #expect(o.count == 19 && o["k3"] == nil && o["k19"] == .int(19))
        #expect(o.keys.first == "k0" && o.keys[3] == "k4")
    }

    final class UserDrop: LiquidDrop {
        func liquidProperty(_ key: String) -> LiquidValue? { key == "name" ? "Ana" : nil }
    }

    @Test func dropsAreReadLazily() throws {
        #expect(try render("{{ user.name }}|{{ user.missing }}", ["user": .drop(UserDrop())]) == "Ana|")
    }

    @Test func pathsIndexesAndCommands() throws {
        let data: LiquidValue = ["a": [["t": "x"], ["t": "y"]], "k": "t", "s": "hello"]
        #expect(try render("{{ a[1].t }}{{ a[-1][k] }}{{ a.size }}{{ a.first.t }}{{ a.last.t }}{{ s.size }}{{ ['s'] }}", data) == "yy2xy5hello")
    }
}

@Suite struct JSONTextWriterTests {
    /// Written directly, the text is the one the same object built as a value serializes to.
    @Test func matchesTheSerializedValue() {
        var json = JSONTextWriter()
        json.beginObject()
        json.key("aps")
        json.beginObject()
        json.key("alert")
        json.beginObject()
        json.key("title"); json.string("Hi \"Ana\"\n")
        json.key("body"); Array("Olá — ✓ \u{1}".utf8).withUnsafeBufferPointer { json.string(utf8: $0) }
        json.endObject()
        json.key("badge"); json.value(.int(-3))
        json.key("empty"); json.beginObject(); json.endObject()
        json.endObject()
        json.key("ab"); json.beginObject(); json.key("c"); json.null(); json.endObject()
        json.key("data"); json.value(["list": [1, 2.5, "x", nil, true], "n": 0.1])
        json.endObject()
        let value: LiquidValue = [
            "aps": ["alert": ["title": "Hi \"Ana\"\n", "body": "Olá — ✓ \u{1}"], "badge": -3, "empty": [:]],
            "ab": ["c": nil],
            "data": ["list": [1, 2.5, "x", nil, true], "n": 0.1],
        ]
        #expect(json.text == value.jsonString)
        #expect(json.text.hasPrefix(#"{"aps":{"alert":{"title":"Hi \"Ana\"\n","#))
    }

    /// Rewinding forgets what was written since the mark, commas and nesting included; lines
    /// of NDJSON and raw bytes; an emptied writer starts over.
    @Test func marksLinesAndRawBytes() {
        var json = JSONTextWriter()
        json.beginObject()
        json.key("a"); json.value(.int(1))
        let mark = json.mark
        json.key("b"); json.beginObject(); json.key("c"); json.beginObject()  // abandoned halfway
        json.rewind(to: mark)
        json.key("d"); json.raw(bytes: Array(#"{"e":[1]}"#.utf8))
        json.endObject()
        json.endLine()
        json.beginObject(); json.key("n"); json.null(); json.endObject()
        #expect(json.text == "{\"a\":1,\"d\":{\"e\":[1]}}\n{\"n\":null}")
        json.removeAll()
        json.beginObject(); json.endObject()
        #expect(json.text == "{}")
    }
}
