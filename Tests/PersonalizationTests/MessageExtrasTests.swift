import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import Testing

/// `{% message_extras :key K :value V %}`: pairs for the send event, beside the text.
@Suite struct MessageExtrasTests {
    func render(_ fields: [(name: String, source: String)], _ json: String = #"{"profile": {"language": "pt", "first_name": "Ana"}}"#) throws -> MessageTemplate.RenderedTexts {
        let message = try MessageTemplate(fields: fields, environment: BrazeDialect().environment())
        var texts = MessageTemplate.RenderedTexts()
        let aborted = try message.render(try document(json), into: &texts)
        #expect(aborted == nil)
        return texts
    }

    @Test func pairsAreCollectedAcrossFieldsAndNeverRendered() throws {
        let texts = try render([
            (name: "title", source: "Hi{% message_extras :key language :value {{${language}}} %}!"),
            (name: "body", source: "{% assign k = 'who' %}{% message_extras :key  {{ k }}  :value   {{${first_name}}} the first   %}b"),
        ])
        #expect(texts.text(0) == "Hi!" && texts.text(1) == "b")
        #expect(texts.messageExtras == [MessageExtra(key: "language", value: "pt"), MessageExtra(key: "who", value: "Ana the first")])
        #expect(texts.warnings.isEmpty)
    }

    @Test func theFirstValueOfAKeyWinsAndOneKilobyteIsTheLimit() throws {
        let long = String(repeating: "é", count: 600)  // 1,200 bytes
        let texts = try render([
            (name: "title", source: "{% message_extras :key a :value 1 %}{% message_extras :key a :value 2 %}"),
            (name: "body", source: "{% message_extras :key b :value \(long) %}{% message_extras :key c :value 3 %}"),
        ])
        #expect(texts.messageExtras.map(\.key) == ["a", "b"])
        #expect(texts.messageExtras[0].value == "1")
        // 1,024 bytes in all: "a" + "1" + "b" leave 1,021 bytes, 510 two-byte characters.
        #expect(texts.messageExtras[1].value == String(repeating: "é", count: 510))
        #expect(texts.warnings.map(\.warning.message) == [
            "message_extras: the key 'a' is given again; Braze keeps its first value",
            "message_extras: past 1024 bytes of keys and values, the value of 'b' is cut to 1020 bytes",
            "message_extras: past 1024 bytes of keys and values, 'c' is cut off entirely",
        ])
        #expect(texts.warnings[1].field == 1 && texts.warnings[1].warning.location == SourceLocation(line: 1, column: 1))
    }

    @Test(arguments: [
        ("{% message_extras key a value b %}", "no :key and :value"),
        ("{% message_extras :value 1 :key a %}", ":value comes before :key"),
        ("{% message_extras x :key a :value 1 %}", "text before :key"),
        ("{% message_extras :key a %}", "no :value after :key"),
        ("{% message_extras :key   :value 1 %}", "an empty key"),
    ])
    func malformedTagsAreWarnedAboutAndPassNothing(_ source: String, _ why: String) throws {
        let template = try BrazeDialect().environment().parse("x\n  " + source, name: "body")
        #expect(template.warnings.count == 1)
        #expect(template.warnings.first?.message.hasPrefix("message_extras: \(why);") == true, "\(template.warnings)")
        #expect(template.warnings.first?.location == SourceLocation(line: 2, column: 3))
        let texts = try render([(name: "body", source: source)])
        #expect(texts.messageExtras.isEmpty && texts.text(0) == "")
    }

    @Test func liquidErrorsInsideArePlacedInTheField() throws {
        let error = liquidError { try BrazeDialect().environment(errorMode: .strict).parse("{% message_extras :key a :value {{ x | }} %}", name: "body") }
        #expect(error?.templateName == "body")
        // Inside the value's `{{ x | }}` (column 33 on), not at the tag.
        #expect(error?.location?.line == 1 && (error?.location?.column ?? 0) >= 33, "\(String(describing: error))")
    }
}

/// `{% random %}` as Braze's docs describe it.
@Suite struct RandomTagTests {
    @Test func floatsAndIntegersInRange() throws {
        let env = BrazeDialect().environment()
        let doc = try document("{}")
        for _ in 0..<200 {
            guard case .rendered(let f) = try env.parse("{% random %}").renderMessage(doc), let x = Double(f) else { Issue.record("no float"); return }
            #expect(x >= 0 && x < 1)
            guard case .rendered(let i) = try env.parse("{% assign n = 10 %}{% random n %}").renderMessage(doc), let k = Int(i) else { Issue.record("no integer"); return }
            #expect((0..<10).contains(k))
        }
        // The docs' A/B use.
        guard case .rendered(let ab) = try env.parse("{% capture r %}{% random %}{% endcapture %}{% assign roll = r | plus: 0 %}{% if roll < 0.5 %}A{% else %}B{% endif %}").renderMessage(doc) else { return }
        #expect(ab == "A" || ab == "B")
        #expect(liquidError { _ = try env.parse("{% random 0 %}").renderMessage(doc) }?.message.contains("positive integer") == true)
        #expect(liquidError { _ = try env.parse("{% random 'x' %}").renderMessage(doc) } != nil)
    }
}
