import Liquid
import Testing

/// The parser reuses its buffers from markup to markup and template to template, writes markup
/// tokens into a buffer sized by the markup's bytes, compares keywords by bytes and shares long
/// names through a per-thread table: these check the edges of each.
@Suite struct ParserBufferTests {
    @Test func markupWhereEveryByteIsAToken() throws {
        // "a.b.c.d" is seven tokens in seven bytes, plus the end: the most the buffer must hold.
        let data: LiquidValue = ["a": ["b": ["c": ["d": "deep"]]]]
        #expect(try render("{{a.b.c.d}}", data) == "deep")
        #expect(try render("{{a.b.c.d}}{{a}}", ["a": 1]) == "1")
        // Lax mode skips junk characters without making tokens of them.
        #expect(try render("{{ x !!! }}", ["x": "ok"]) == "ok")
    }

    @Test func shorterMarkupAfterLongerReadsOnlyItsOwnTokens() throws {
        let data: LiquidValue = ["a": ["b": ["c": "long"]], "x": "short", "y": "up"]
        let source = "{{ a.b.c | default: 'zzzzzzzzzz' | append: '!' }}{{ x }}{{ y | upcase }}{{ z }}"
        #expect(try render(source, data) == "long!shortUP")
        // The same parser (this thread's) parses the next template with the same buffers.
        #expect(try render("{{ x }}", data) == "short")
        #expect(throws: LiquidError.self) { try render("{{ x | }}", data, mode: .strict) }
        #expect(try render("{{ x }}", data, mode: .strict) == "short")
    }

    @Test func keywordsMatchWholeWordsOnly() throws {
        let data: LiquidValue = ["true_": "t", "nil2": "n", "blanks": "b", "emptyish": "e"]
        #expect(try render("{{ true_ }}{{ nil2 }}{{ blanks }}{{ emptyish }}", data) == "tnbe")
        #expect(try render("{% if true_ == 'f' or nil2 %}x{% endif %}", data, mode: .strict) == "x")
        #expect(try render("{% if blanks contains 'b' %}yes{% endif %}", data) == "yes")
        #expect(try render("{% if nil == null %}same{% endif %}") == "same")
        // `raw` and `doc` by their three bytes only: `rawx` is an unknown tag.
        #expect(throws: LiquidError.self) { try render("{% rawx %}{{ a }}{% endrawx %}") }
        #expect(try render("{% raw %}{{ a }}{% endraw %}") == "{{ a }}")
    }

    @Test func longNamesSharedBetweenTemplates() throws {
        let long = String(repeating: "n", count: 40)
        let veryLong = String(repeating: "v", count: 70)
        let data: LiquidValue = .object(LiquidObject([(long, "first"), (veryLong, "second"), (long + "x", "third")]))
        #expect(try render("{{ \(long) }}", data) == "first")
        #expect(try render("{{ \(long) }}-{{ \(veryLong) }}-{{ \(long)x }}", data) == "first-second-third")
        #expect(try render("{{ ['\(long)'] }}", data) == "first")
    }

    @Test func tagAndOutputEndsFoundByBytes() throws {
        #expect(try render("{% if true %}50%{% endif %} of {{ 'a' }}") == "50% of a")
        #expect(try render("100% {{ 'x' }} %} }") == "100% x %} }")
        #expect(throws: LiquidError.self) { try render("{% if true %}x{% endif ") }
        #expect(throws: LiquidError.self) { try render("{% if true %}x{% endif %") }
        #expect(throws: LiquidError.self) { try render("{{ x ") }
    }
}
