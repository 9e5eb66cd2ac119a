import Liquid
import LiquidTestSupport
import Testing

/// Ruby 5.13's lax parser, as this engine reads markup that strict parsing refuses, and the
/// modes (`strict` reads some tags laxly, `strict2` refuses more). Most behaviour is checked
/// against Ruby's own output in the liquid-spec and reference suites; these are the engine's
/// own guarantees around it.
@Suite struct LaxParserTests {
    @Test func readsWhatTheReferenceReads() throws {
        #expect(try render("{% cycle 'a'  'b', 'c' %}{% cycle 'a'  'b', 'c' %}") == "ac")
        #expect(try render("{% if true && false %}Y{% endif %}") == "Y")
        #expect(try render("{{ 'hello' || upcase }}") == "HELLO")
        #expect(try render("{% for i in (1...3) %}{{ i }}{% endfor %}") == "123")
        #expect(try render("{% increment %}{% increment %}") == "01")
        #expect(try render("{% if a!=b %}T{% else %}F{% endif %}", ["a": 1, "b": 2]) == "F", "Ruby reads a!=b as a.b")
        #expect(try render("{% if a != b %}T{% else %}F{% endif %}", ["a": 1, "b": 2]) == "T")
    }

    @Test func unknownOperatorsFailOnlyWhenEvaluated() throws {
        #expect(try render("{% if true %}a{% elsif 1 foo 2 %}b{% endif %}") == "a")
        #expect(liquidError { try render("{% if 1 foo 2 %}a{% endif %}") }?.reason == .syntax("Unknown operator foo"))
    }

    @Test func strictModesFollowTheReference() throws {
        // 5.13's strict mode reads `cycle` and `case` laxly; strict2 refuses them.
        #expect(try render("{% cycle 'a'  'b' %}", mode: .strict) == "a")
        #expect(liquidError { try render("{% cycle 'a'  'b' %}", mode: .strict2) } != nil)
        #expect(try render("a{{}}b", mode: .strict2) == "ab")
        #expect(try render("{{ 'a' | upcase: }}", mode: .strict2) == "A")
        #expect(liquidError { try render("{{ 'a' | upcase: }}", mode: .strict) } != nil)
        for refused in ["{{ ['x'] }}", "{{ contains }}", "{% assign 5 = 1 %}", "{% increment 5 %}", "{% for x in (1..2) , %}{% endfor %}"] {
            #expect(liquidError { try render(refused, mode: .strict2) } != nil, "\(refused)")
        }
    }

    @Test func warnModeRecordsTheStrictError() throws {
        let template = try LiquidEnvironment(errorMode: .warn).parse("{% if true && false %}Y{% endif %}")
        #expect(try template.render() == "Y")
        #expect(template.warnings.count == 1)
    }

    @Test func pathologicalMarkupIsReadInLinearTime() throws {
        // Each of these once made a lax reader rescan the rest of the markup at every byte.
        let n = 200_000
        #expect(try render("{{ " + String(repeating: "'", count: n) + " }}") == "")
        #expect(try render("{{ x | f: " + String(repeating: ":", count: n) + " }}") == "")
        #expect(try render("{% cycle " + String(repeating: ":", count: n) + " %}").isEmpty)
        #expect(liquidError { try render("{{ a" + String(repeating: "[", count: n) + " }}") }?.reason == .limitExceeded(.nestingDepth(100)))
        let ors = "{% if " + Array(repeating: "a", count: 500).joined(separator: " or ") + " && %}{% endif %}"
        #expect(liquidError { try render(ors) }?.reason == .limitExceeded(.nestingDepth(100)))
    }
}
