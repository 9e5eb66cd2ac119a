import Liquid
import LiquidTestSupport
import Testing

/// After `if_else_tag_test.rb`, `unless_else_tag_test.rb` and `case_tag_test.rb`.
@Suite struct IfTagTests {
    @Test(arguments: [
        ("{% if true or false and false %}T{% else %}F{% endif %}", "T"),
        ("{% if false and false or true %}T{% else %}F{% endif %}", "F"),
        ("{% if 1 == 1.0 %}T{% else %}F{% endif %}", "T"),
        ("{% if '1' == 1 %}T{% else %}F{% endif %}", "F"),
        ("{% if 'abc' contains 'b' %}T{% else %}F{% endif %}", "T"),
        ("{% if nil < 1 %}T{% else %}F{% endif %}", "F"),
        ("{% if 2 <> 3 %}T{% else %}F{% endif %}", "T"),
        ("{% if x %}a{% elsif y %}b{% else %}c{% endif %}", "c"),
        ("{% unless false %}u{% endunless %}", "u"),
        ("{% if '  ' == blank %}blank{% endif %}", "blank"),
        ("{% if false == blank %}blank{% endif %}", "blank"),
        ("{% if '' == empty %}empty{% endif %}", "empty"),
    ])
    func conditions(_ source: String, _ expected: String) throws {
        #expect(try render(source) == expected)
    }

    @Test func comparingStringWithNumberIsAnError() throws {
        let error = liquidError { try render("{% if 'a' < 1 %}x{% endif %}") }
        #expect(error?.reason == .argument("comparison of String with 1 failed"))
    }

    @Test func caseRendersEveryMatchingWhen() throws {
        #expect(try render("{% case x %}{% when 1, 2 %}a{% when 2 %}b{% else %}c{% endcase %}", ["x": 2]) == "ab")
        #expect(try render("{% case x %}{% when 1 or 3 %}a{% else %}c{% endcase %}", ["x": 5]) == "c")
    }
}
