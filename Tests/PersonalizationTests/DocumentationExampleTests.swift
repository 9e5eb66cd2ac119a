import Liquid
import Personalization
import Testing

/// The getting-started articles' examples (Liquid.docc, Personalization.docc), run as written.
@Suite struct DocumentationExampleTests {
    @Test func liquidGettingStarted() throws {
        let env = LiquidEnvironment()
        let template = try env.parse("Hi {{ name | default: 'there' | capitalize }}!", name: "greeting")
        #expect(try template.render(["name": "ana"]) == "Hi Ana!")
        #expect(try template.render([:]) == "Hi There!")
        let data = try JSONValueParser.parse(#"{"user": {"name": "bo", "points": 12}}"#)
        let card = try env.parse("{{ user.name | upcase }}: {{ user.points | plus: 1 }} points")
        #expect(try card.render(data) == "BO: 13 points")
    }

    @Test func personalizationGettingStarted() throws {
        let env = BrazeDialect().environment()
        let title = try env.parse("Hi {{${first_name} | default: 'there'}}, {{custom_attribute.${points}}} points", name: "title")
        let document = try RenderContextDocument(json: """
            {"profile": {"external_id": "u1", "first_name": "Ana", "custom_attributes": {"points": 12}},
             "api_trigger_properties": {"next_session_name": "Canvas Flows"}}
            """)
        #expect(try title.render(document.value, options: document.renderOptions()) == "Hi Ana, 12 points")
        let message = MessageTemplate(fields: [
            .init(name: "title", template: title),
            .init(name: "body", template: try env.parse("{% if ${first_name} == blank %}{% abort_message('no name') %}{% endif %}Welcome back")),
        ])
        guard case .rendered(let fields) = try message.render(document) else { Issue.record("not rendered"); return }
        #expect(fields.map(\.text) == ["Hi Ana, 12 points", "Welcome back"])
        let nameless = try RenderContextDocument(json: #"{"profile": {"external_id": "u2"}}"#)
        #expect(try message.render(nameless) == .aborted(field: "body", reason: "no name"))
    }
}
