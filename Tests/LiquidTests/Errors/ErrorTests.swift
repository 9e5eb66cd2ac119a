import Liquid
import LiquidTestSupport
import Testing

@Suite struct ErrorLocationTests {
    @Test(arguments: [
        ("{% if a %}\n  1️⃣{% endfr %}{% endif %}", LiquidError.Reason.unknownTag("endfr")),
        ("ok\n1️⃣{% endif %}", .unexpectedTag("endif")),
        ("1️⃣{% for x in y %}never closed", .unclosedBlock("for")),
        ("{% if a %}{% else %}x1️⃣{% endunless %}", .unexpectedTag("endunless")),
        ("1️⃣{% if a %}{% else %}x", .unclosedBlock("if")),
        ("éé 1️⃣{% nosuch %}", .unknownTag("nosuch")),
        ("1️⃣{{ unterminated", .syntax("variable '{{' was not properly terminated with '}}'")),
    ])
    func parseErrorsPointAtTheTag(_ marked: String, _ reason: LiquidError.Reason) throws {
        let source = MarkedText(marked)
        let error = liquidError { try LiquidEnvironment().parse(source.text, name: "welcome") }
        #expect(error?.reason == reason)
        #expect(error?.location == source.location)
        #expect(error?.templateName == "welcome")
    }

    @Test func renderErrorsPointAtTheNode() throws {
        // A filter's error points at the filter.
        let source = MarkedText("line one\n  {{ 10 | 1️⃣divided_by: 0 }}")
        let template = try LiquidEnvironment().parse(source.text, name: "math")
        let error = liquidError { try template.render() }
        #expect(error?.reason == .zeroDivision)
        #expect(error?.location == source.location)
        #expect(error?.description == "math:2:11: error: divided by 0")
    }

    /// Node offsets are kept inline for short bodies and in an array past six nodes (or past
    /// 4 GiB): each node's error must still point at that node.
    @Test(arguments: [0, 2, 5, 6, 7, 15])
    func renderErrorsPointAtTheNodeInBodiesOfAnyLength(_ nodesBefore: Int) throws {
        let before = (0..<nodesBefore).map { "{{ n\($0) }}\n" }.joined()
        let source = MarkedText("{% if true %}" + before + "1️⃣{{ missing }}{{ after }}{% endif %}")
        let template = try LiquidEnvironment().parse(source.text)
        let error = liquidError { try template.render([:], options: RenderOptions(strictVariables: true)) }
        #expect(error?.reason == .undefinedVariable("n0") || nodesBefore == 0)
        let data = LiquidValue.object(LiquidObject((0..<nodesBefore).map { ("n\($0)", LiquidValue.int($0)) }))
        let located = liquidError { try template.render(data, options: RenderOptions(strictVariables: true)) }
        #expect(located?.reason == .undefinedVariable("missing"))
        #expect(located?.location == source.location)
    }

    @Test func strictModeRejectsJunkThatLaxAccepts() throws {
        #expect(try render("{{ a b | upcase }}", ["a": "x"]) == "X")
        let error = liquidError { try render("{{ a b }}", mode: .strict) }
        #expect(error?.reason == .unexpectedToken(expected: "end of markup", found: "'b'"))
    }

    @Test func strictFilterArity() throws {
        let error = liquidError { try LiquidEnvironment(errorMode: .strict).parse("{{ x | upcase: 5 }}") }
        #expect(error?.reason == .filterArity(filter: "upcase", expected: "0", got: 1))
        // Lax parsing accepts it, and the render reports it.
        let lax = liquidError { try render("{{ x | upcase: 5 }}") }
        #expect(lax?.reason == .filterArity(filter: "upcase", expected: "0", got: 1))
    }

    @Test func warnModeCollectsWarnings() throws {
        let template = try LiquidEnvironment(errorMode: .warn).parse("{{ a b }}{{ c }}")
        #expect(template.warnings.count == 1)
        #expect(template.warnings.first?.location == SourceLocation(line: 1, column: 6))
        #expect(try template.render(["a": 1]) == "1")
    }

    @Test func strictVariablesAndFilters() throws {
        let strictVars = RenderOptions(strictVariables: true)
        #expect(liquidError { try render("{{ missing }}", options: strictVars) }?.reason == .undefinedVariable("missing"))
        #expect(liquidError { try render("{{ o.nope }}", ["o": ["a": 1]], options: strictVars) }?.reason == .undefinedVariable("o.nope"))
        #expect(try render("{{ o.a }}", ["o": ["a": 1]], options: strictVars) == "1")
        #expect(try render("{{ 'x' | nosuch }}") == "x")
        #expect(liquidError { try render("{{ 'x' | nosuch }}", options: RenderOptions(strictFilters: true)) }?.reason == .unknownFilter("nosuch"))
    }
}

@Suite struct LimitTests {
    func env(_ limits: LiquidLimits) -> LiquidEnvironment { LiquidEnvironment(limits: limits) }

    @Test func outputLimit() throws {
        let t = try env(LiquidLimits(outputBytes: 100)).parse("{% for i in (1..1000) %}xxxxxxxxxx{% endfor %}")
        #expect(liquidError { try t.render() }?.reason == .limitExceeded(.outputBytes(100)))
    }

    @Test func stepLimitStopsHugeLoops() throws {
        let t = try env(LiquidLimits(renderSteps: 10_000)).parse("{% for i in (1..1000000000) %}{% endfor %}")
        #expect(liquidError { try t.render() }?.reason == .limitExceeded(.renderSteps(10_000)))
    }

    @Test func nestingLimit() throws {
        let deep = String(repeating: "{% if true %}", count: 200) + String(repeating: "{% endif %}", count: 200)
        #expect(liquidError { try LiquidEnvironment().parse(deep) }?.reason == .limitExceeded(.nestingDepth(100)))
        let brackets = "{{ a" + String(repeating: "[a", count: 5000) + String(repeating: "]", count: 5000) + " }}"
        #expect(liquidError { try LiquidEnvironment().parse(brackets) }?.reason == .limitExceeded(.nestingDepth(100)))
        let ors = "{% if " + Array(repeating: "a", count: 5000).joined(separator: " or ") + " %}{% endif %}"
        #expect(liquidError { try LiquidEnvironment().parse(ors) }?.reason == .limitExceeded(.nestingDepth(100)))
    }
}
