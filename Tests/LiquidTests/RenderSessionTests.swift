import Liquid
import LiquidTestSupport
import Testing

/// `LiquidTemplate.withSession`: several templates against the same data, each a render of its own.
@Suite struct RenderSessionTests {
    var env: LiquidEnvironment { LiquidEnvironment(fileSystem: InMemoryFileSystem(["card": "[{{ user.name }}|{{ note }}]"])) }
    var data: LiquidValue { ["user": ["name": "Ana", "tags": ["a", "b"]], "note": "outer"] }

    @Test func eachRenderStartsFresh() throws {
        let first = try env.parse("{% assign x = 'set' %}{% increment n %}{% increment n %}{% cycle 'p', 'q' %}{{ x }}")
        let second = try env.parse("{{ x }}|{% increment n %}|{% cycle 'p', 'q' %}")
        let outputs = try LiquidTemplate.withSession(data) { session in
            [try session.render(first), try session.render(second), try session.render(first)]
        }
        #expect(outputs == ["01pset", "|0|p", "01pset"])
    }

    @Test func sameOutputAsSeparateRenders() throws {
        let sources = [
            "{{ user.name | upcase }} {{ user.tags | join: ',' }} {{ user.tags.size }} {{ user['name'] }}",
            "{% for t in user.tags %}{{ forloop.index }}{{ t }}{% endfor %}{% if user.name == 'Ana' %}!{% endif %}",
            "{{ missing.deep.path | default: 'none' }}{% assign user = 'shadow' %}{{ user }}",
            "{% render 'card' %}{% include 'card' %}",
        ]
        let templates = try sources.map { try env.parse($0) }
        let separately = try templates.map { try $0.render(data) }
        let inSession = try LiquidTemplate.withSession(data) { session in try templates.map { try session.render($0) } }
        #expect(inSession == separately)
        // `render` isolates the partial from the data; `include` shares it.
        #expect(inSession[3] == "[|][Ana|outer]")
    }

    @Test func errorsCarryTheirLocation() throws {
        let good = try env.parse("ok")
        let bad = try LiquidEnvironment(errorMode: .strict).parse("a\n{{ 1 | divided_by: 0 }}", name: "field")
        let error = liquidError {
            try LiquidTemplate.withSession(data) { session in
                [try session.render(good), try session.render(bad)]
            }
        }
        #expect(error?.templateName == "field")
        #expect(error?.location?.line == 2)
        // The session keeps working after a failed render.
        let after = try LiquidTemplate.withSession(data) { session in
            (try? session.render(bad), try session.render(good))
        }
        #expect(after.0 == nil && after.1 == "ok")
    }

    /// An output that is one long string value is returned as that string; anything more
    /// written after it (text, another value, a capture's own output) still counts.
    @Test func outputsMadeOfOneLongString() throws {
        let long = "a string longer than fifteen bytes"
        let data: LiquidValue = ["s": .string(long), "n": 7]
        let cases: [(String, String)] = [
            ("{{ s }}", long), ("{{ s }}!", long + "!"), ("{{ s }}{{ s }}", long + long), ("{{ s }}{{ n }}", long + "7"),
            ("{{ s }}{% capture c %}{{ s }}{% endcapture %}", long), ("{{ s }}{% capture c %}x{% endcapture %}{{ c }}", long + "x"),
            ("{% capture c %}{{ s }}{% endcapture %}{{ c | size }}", "\(long.count)"), ("{{ s | upcase }}", long.uppercased()),
        ]
        for (source, expected) in cases {
            let template = try env.parse(source)
            #expect(try template.render(data) == expected, "\(source)")
            #expect(try LiquidTemplate.withSession(data) { try [$0.render(template), $0.render(template)] } == [expected, expected], "\(source)")
        }
    }

    @Test func strictVariablesStillApply() throws {
        let template = try env.parse("{{ user.nickname }}")
        let error = liquidError {
            try LiquidTemplate.withSession(data, options: RenderOptions(strictVariables: true)) { try $0.render(template) }
        }
        #expect(error != nil)
    }
}
