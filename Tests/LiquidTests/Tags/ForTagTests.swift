import Liquid
import LiquidTestSupport
import Testing

/// After Shopify's `for_tag_test.rb`.
@Suite struct ForTagTests {
    @Test func forloopObject() throws {
        let out = try render("{% for x in a %}{{ forloop.index }}/{{ forloop.index0 }}/{{ forloop.rindex }}/{{ forloop.rindex0 }}/{{ forloop.first }}/{{ forloop.last }}/{{ forloop.length }} {% endfor %}", ["a": [1, 2]])
        #expect(out == "1/0/2/1/true/false/2 2/1/1/0/false/true/2 ")
    }

    /// Loops reuse a finished loop's `forloop` only when nothing kept it.
    @Test func keptForloopIsNotReused() throws {
        let out = try render("{% for i in (1..2) %}{% assign f = forloop %}{% endfor %}{% for j in (1..3) %}{{ forloop.length }}{% endfor %}|{{ f.length }}|{% for k in (1..2) %}{% for m in (1..2) %}{{ forloop.parentloop.index }}{{ forloop.index }}{% endfor %}{% endfor %}")
        #expect(out == "333|2|11122122")
    }

    @Test func parentloopAndName() throws {
        let out = try render("{% for i in (1..2) %}{% for j in a %}{{ forloop.parentloop.index }}{{ forloop.name }};{% endfor %}{% endfor %}", ["a": [1]])
        #expect(out == "1j-a;2j-a;")
    }

    @Test func limitOffsetReversed() throws {
        #expect(try render("{% for i in (1..10) reversed limit: 3 offset: 2 %}{{ i }}{% endfor %}") == "543")
        // As Ruby 5.13: `reversed` counts only right after the collection. Lax reads past it
        // (the reference's lax regex); strict refuses it.
        #expect(try render("{% for i in (1..10) limit: 3 offset: 2 reversed %}{{ i }}{% endfor %}") == "345")
        #expect(throws: LiquidError.self) { try render("{% for i in (1..10) limit: 3 reversed %}{% endfor %}", mode: .strict) }
    }

    @Test func offsetContinue() throws {
        let src = "{% for i in a limit: 2 %}{{ i }}{% endfor %}|{% for i in a offset: continue limit: 2 %}{{ i }}{% endfor %}|{% for i in a offset: continue %}{{ i }}{% endfor %}"
        #expect(try render(src, ["a": [1, 2, 3, 4, 5]]) == "12|34|5")
    }

    @Test func breakContinueAndElse() throws {
        #expect(try render("{% for i in (1..6) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 5 %}{% break %}{% endif %}{{ i }}{% endfor %}") == "134")
        #expect(try render("{% for i in empty_list %}x{% else %}none{% endfor %}", ["empty_list": []]) == "none")
    }

    @Test func iteratesObjectPairsAndStrings() throws {
        #expect(try render("{% for p in h %}{{ p[0] }}={{ p[1] }};{% endfor %}", ["h": ["b": 1, "a": 2]]) == "b=1;a=2;")
        #expect(try render("{% for c in s %}[{{ c }}]{% endfor %}", ["s": "abc"]) == "[abc]")
    }

    @Test func loopVariableDoesNotLeakButAssignsDo() throws {
        #expect(try render("{% for x in (1..2) %}{% assign y = x %}{% endfor %}{{ x }}|{{ y }}") == "|2")
    }
}

/// After `tablerow_tag_test.rb`.
@Suite struct TablerowTagTests {
    @Test func columnsAndRows() throws {
        let out = try render("{% tablerow n in (1..3) cols: 2 %}{{ n }}{% endtablerow %}")
        #expect(out == "<tr class=\"row1\">\n<td class=\"col1\">1</td><td class=\"col2\">2</td></tr>\n<tr class=\"row2\"><td class=\"col1\">3</td></tr>\n")
    }

    @Test func tablerowloop() throws {
        let out = try render("{% tablerow n in (1..2) cols: 2 %}{{ tablerowloop.col }}{{ tablerowloop.col_last }}{% endtablerow %}")
        #expect(out.contains("1false") && out.contains("2true"))
    }
}
