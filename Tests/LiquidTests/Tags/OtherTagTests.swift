import Liquid
import LiquidTestSupport
import Testing

@Suite struct AssignCaptureTests {
    @Test func assignWithFilters() throws {
        #expect(try render("{% assign x = 'a,b' | split: ',' | join: '-' %}{{ x }}") == "a-b")
    }
    @Test func captureAndHyphenatedNames() throws {
        #expect(try render("{% capture my-var %}v{{ 1 | plus: 1 }}{% endcapture %}{{ my-var }}") == "v2")
    }
}

@Suite struct CounterTagTests {
    @Test func incrementAndDecrementQuirks() throws {
        #expect(try render("{% increment c %}{% increment c %}{% decrement c %}{{ c }}") == "0111")
        #expect(try render("{% decrement d %}{% decrement d %}") == "-1-2")
        // An assign hides the counter from output, not from the tag.
        #expect(try render("{% assign c = 10 %}{% increment c %}{{ c }}") == "010")
    }
}

@Suite struct CycleTagTests {
    @Test func cyclesAndGroups() throws {
        #expect(try render("{% for i in (1..4) %}{% cycle 'a', 'b', 'c' %}{% endfor %}") == "abca")
        #expect(try render("{% cycle 'g': 1, 2 %}{% cycle 'h': 1, 2 %}{% cycle 'g': 1, 2 %}") == "112")
        // An unquoted group name is a variable, as in the reference: here both are nil.
        #expect(try render("{% cycle g: 1, 2 %}{% cycle h: 1, 2 %}") == "12")
    }
}

@Suite struct RawCommentTests {
    @Test func rawAndComments() throws {
        #expect(try render("{% raw %}{{ x }}{% endraw %}") == "{{ x }}")
        #expect(try render("a{% comment %}{% if %}{% endcomment %}b{% # note %}c") == "abc")
        #expect(try render("{% doc %}@param x{% enddoc %}ok") == "ok")
    }
}

@Suite struct LiquidTagTests {
    @Test func linesAreTags() throws {
        let src = """
            {% liquid
              assign n = 3
              for i in (1..n)
                echo i
              endfor
            %}
            """
        #expect(try render(src) == "123")
    }
}

@Suite struct PartialTagTests {
    let fs = InMemoryFileSystem([
        "card": "[{{ card.t }}{{ extra }}]",
        "loop": "{{ forloop.index }}{{ loop }}",
        "self": "{% include 'self' %}",
        "sets": "{% assign leaked = 'yes' %}",
    ])

    @Test func includeSharesScope() throws {
        #expect(try render("{% include 'sets' %}{{ leaked }}", fileSystem: fs) == "yes")
        #expect(try render("{% include 'card' with c, extra: '!' %}", ["c": ["t": "A"]], fileSystem: fs) == "[A!]")
    }

    @Test func renderIsIsolated() throws {
        #expect(try render("{% render 'sets' %}{{ leaked }}", fileSystem: fs) == "")
        #expect(try render("{% assign extra = 'x' %}{% render 'card' with c %}", ["c": ["t": "A"]], fileSystem: fs) == "[A]")
        #expect(try render("{% render 'loop' for items %}", ["items": ["a", "b"]], fileSystem: fs) == "1a2b")
    }

    @Test func recursionIsBoundedWithTrace() throws {
        let error = liquidError { try render("{% include 'self' %}", fileSystem: fs) }
        #expect(error?.reason == .limitExceeded(.partialDepth(50)))
        #expect(error?.templateName == "self")
        #expect(error?.trace.count == 50)
    }

    @Test func missingPartialIsAnError() throws {
        let error = liquidError { try render("x\n {% include 'nope' %}", fileSystem: fs) }
        #expect(error?.reason == .templateNotFound("nope"))
        #expect(error?.location == SourceLocation(line: 2, column: 2))
    }
}

@Suite struct WhitespaceControlTests {
    @Test func trimMarkers() throws {
        #expect(try render("a  {{- 'b' -}}  c\n{%- if true -%}\n d {%- endif %}") == "abcd")
    }
    @Test func blankBlocksDropWhitespace() throws {
        #expect(try render("[{% if true %}\n  {% assign x = 1 %}\n{% endif %}]") == "[]")
        #expect(try render("[{% if true %}\n  {{ 'y' }}\n{% endif %}]") == "[\n  y\n]")
    }
}

/// Parsers are reused from one parse to the next on a thread: nothing of one template may show
/// in the next, a parse started inside another gets its own parser, and a parser something
/// kept is never reused.
@Suite struct ParserReuseTests {
    /// A tag that parses another template while it is parsed, and keeps its parser.
    struct NestingTag: LiquidTag {
        let name = "nest"
        final class Kept: @unchecked Sendable { var parsers: [LiquidParser] = [] }
        let kept: Kept
        struct Node: LiquidNode {
            let inner: LiquidTemplate
            func render(_ context: RenderContext) throws { context.write(try inner.render(["v": "in"])) }
        }
        func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
            kept.parsers.append(parser)
            let inner = try parser.environment.parse("[{{ v }}]", name: "inner")
            #expect(parser.source.hasPrefix("a{% nest %}"))  // the outer parse is undisturbed
            return Node(inner: inner)
        }
    }

    @Test func parsesDoNotShareState() throws {
        var env = LiquidEnvironment(errorMode: .warn)
        let kept = NestingTag.Kept()
        env.register(NestingTag(kept: kept))
        let first = try env.parse("a{% nest %}{{ x | nosuchfilter }}{{ a b }}", name: "first")
        #expect(first.unknownFilters == ["nosuchfilter"])
        #expect(first.warnings.count == 1)
        #expect(try first.render(["x": 1]) == "a[in]1")
        let second = try env.parse("{{ y }}", name: "second")
        #expect(second.unknownFilters.isEmpty && second.warnings.isEmpty)
        #expect(try second.render(["y": 2]) == "2")
        // The parser the tag kept still describes the template it parsed.
        #expect(kept.parsers.count == 1 && kept.parsers[0].source == "a{% nest %}{{ x | nosuchfilter }}{{ a b }}")
        let third = try env.parse("{% if y %}{{ y }}{% endif %}!")
        #expect(try third.render(["y": 3]) == "3!")
    }
}
