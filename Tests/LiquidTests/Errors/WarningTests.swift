import Liquid
import Testing

/// Unknown filters and render warnings are located where they happen.
@Suite struct WarningTests {
    /// `{% shrug %}`: renders nothing and warns at its own position.
    struct ShrugTag: LiquidTag {
        let name = "shrug"
        struct Node: LiquidNode {
            let offset: Int
            func render(_ context: RenderContext) throws { context.warn("shrugged", at: offset) }
        }
        func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode { Node(offset: tag.offset) }
    }

    @Test func unknownFilterUsesHaveLineAndColumn() throws {
        let template = try LiquidEnvironment().parse("a\n{{ x | nope }} {{ y | upcase | nope: 1 }}", name: "t")
        #expect(template.unknownFilters == ["nope"])
        #expect(template.unknownFilterUses.map(\.reason) == [.unknownFilter("nope"), .unknownFilter("nope")])
        #expect(template.unknownFilterUses.map(\.location) == [SourceLocation(line: 2, column: 8), SourceLocation(line: 2, column: 32)])
        #expect(template.unknownFilterUses.allSatisfy { $0.templateName == "t" })
        #expect(try template.render(["x": "k"]) == "a\nk ", "lax mode passes the value through")
    }

    @Test func renderWarningsAreLocatedInTheirPartial() throws {
        var env = LiquidEnvironment()
        env.register(ShrugTag())
        env.fileSystem = InMemoryFileSystem(["inner": "x\n  {% shrug %}"])
        let template = try env.parse("{% shrug %}{% render 'inner' %}", name: "outer")
        let result = try LiquidTemplate.withSession([:]) { session -> (String, [LiquidError]) in
            (try session.render(template), session.warnings)
        }
        #expect(result.0 == "x\n  ")
        #expect(result.1.map(\.reason) == [.custom("shrugged"), .custom("shrugged")])
        #expect(result.1.map(\.location) == [SourceLocation(line: 1, column: 1), SourceLocation(line: 2, column: 3)])
        #expect(result.1.map(\.templateName) == ["outer", "inner"])
        #expect(result.1[1].trace == ["inner"])
        // The next render in the session starts without warnings.
        let quiet = try env.parse("ok")
        #expect(try LiquidTemplate.withSession([:]) { session -> Bool in
            _ = try session.render(template)
            _ = try session.render(quiet)
            return session.hasWarnings
        } == false)
    }
}
