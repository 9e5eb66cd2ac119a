import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import Testing

@Suite struct RenderContextDocumentTests {
    @Test func keepsUnknownKeysAndReadsNow() throws {
        let doc = try document(#"{"profile": {"external_id": "u1", "extra_export_field": {"x": 1}}, "now": "\#(fixedNow)", "custom_top": 5}"#)
        #expect(doc.externalID == "u1")
        #expect(doc.now == parseISO8601(fixedNow))
        #expect(try brazeRender("{{ profile.extra_export_field.x }}{{ custom_top }}", doc) == .rendered("15"))
    }

    @Test func badDocumentsAreClearErrors() {
        #expect(throws: PersonalizationError.invalidDocument("2:2: unexpected text after the JSON value")) { _ = try document("{\n}x") }
        #expect(throws: PersonalizationError.self) { try document(#"{"profile": 3}"#) }
        #expect(throws: PersonalizationError.self) { try document(#"{"now": "yesterday"}"#) }
        #expect(throws: PersonalizationError.self) { try document(#"[1]"#) }
    }

    @Test func withoutNowTheClockIsUsed() throws {
        let doc = try document("{}")
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        #expect(try brazeRender("{{ 'now' | date: '%Y' }}", doc) == .rendered(String(year)))
    }
}

@Suite struct AttributeSyntaxTests {
    @Test func attributesAreAnErrorInStandardLiquid() throws {
        let error = liquidError { try LiquidEnvironment(errorMode: .strict).parse("{% if ${first_name} %}{% endif %}") }
        #expect(error != nil)
        // Lax standard Liquid reads `${first_name}` as Ruby 5.13's lax parser does: `first_name`.
        let lax = try LiquidEnvironment().parse("{% if ${first_name} %}yes{% endif %}")
        #expect(try lax.render(["first_name": "Ana"]) == "yes")
    }

    @Test func errorsInsideFieldsHavePositions() throws {
        let source = MarkedText("Hi {{${first_name}}}\n{{ x | 1️⃣divided_by: 0 }}")
        let env = BrazeDialect().environment()
        let error = liquidError { try env.parse(source.text, name: "body").renderMessage(try document("{}")) }
        #expect(error?.reason == .zeroDivision)
        #expect(error?.location == source.location)
        #expect(error?.templateName == "body")
    }

    @Test func fieldsRenderSeparately() throws {
        let message = try MessageTemplate(fields: [
            (name: "title", source: "{% assign x = 'from title' %}{{ x }}"),
            (name: "body", source: "[{{ x }}]{{${first_name}}}"),
        ], environment: BrazeDialect().environment())
        let result = try message.render(try document(#"{"profile": {"first_name": "Bo"}}"#))
        #expect(result == .rendered([.init(name: "title", text: "from title"), .init(name: "body", text: "[]Bo")]))
    }

    @Test func anAbortInAnyFieldAbortsTheMessage() throws {
        let message = try MessageTemplate(fields: [
            (name: "title", source: "ok"),
            (name: "kv", source: "{% if ${first_name} == blank %}{% abort_message('no name') %}{% endif %}"),
        ], environment: BrazeDialect().environment())
        #expect(try message.render(try document("{}")) == .aborted(field: "kv", reason: "no name"))
    }

    @Test func textsRenderIntoOneReusedBuffer() throws {
        let message = try MessageTemplate(fields: [
            (name: "title", source: "Hi {{${first_name}}}"),
            (name: "empty", source: ""),
            (name: "body", source: "{% if ${first_name} == 'Al' %}{% abort_message('al') %}{% endif %}Olá {{${first_name} | upcase}}"),
        ], environment: BrazeDialect().environment())
        var texts = MessageTemplate.RenderedTexts()
        #expect(try message.render(try document(#"{"profile": {"first_name": "Bo"}}"#), into: &texts) == nil)
        #expect(texts.count == 3)
        #expect((0..<3).map { texts.text($0) } == ["Hi Bo", "", "Olá BO"])
        #expect(texts.withUTF8(2) { Array($0) } == Array("Olá BO".utf8))
        // The next message starts empty; an abort leaves the fields before it.
        let aborted = try message.render(try document(#"{"profile": {"first_name": "Al"}}"#), into: &texts)
        #expect(aborted?.field == "body" && aborted?.reason == "al")
        #expect(texts.count == 2 && texts.text(0) == "Hi Al")
    }

    @Test func unknownTimeZoneWarnsAtTheFilter() throws {
        let env = BrazeDialect().environment()
        let source = MarkedText("x\n{{ 'now' | 1️⃣time_zone: 'Nowhere/Else' | date: '%H' }}")
        let template = try env.parse(source.text, name: "body")
        let doc = try document(#"{"now": "\#(fixedNow)"}"#)
        let context = template.makeContext(doc.value, options: doc.renderOptions())
        try template.render(into: context)
        #expect(context.output == "x\n10")
        #expect(context.warnings.map(\.reason) == [.custom("time_zone: unknown time zone 'Nowhere/Else', showing UTC")])
        #expect(context.warnings.first?.location == source.location)
        #expect(context.warnings.first?.templateName == "body")
    }

    @Test(arguments: [
        // The docs' numeric offsets: hours, and hours with minutes.
        ("-0005", "04:00 -0500"), ("-5", "04:00 -0500"), ("'-0500'", "04:00 -0500"), ("-500", "04:00 -0500"),
        ("'+05:30'", "14:30 +0530"), ("530", "14:30 +0530"), ("5.5", "14:30 +0530"), ("'UTC+5'", "14:00 +0500"),
        ("'GMT-03:30'", "05:30 -0330"), ("'-03'", "06:00 -0300"), ("'Z'", "09:00 +0000"), ("0", "09:00 +0000"),
        // IANA names (with daylight saving: 2026-07-01 is summer), Rails names as the export writes them, abbreviations.
        ("'America/Chicago'", "04:00 -0500"), ("'Eastern Time (US & Canada)'", "05:00 -0400"), ("'Lisbon'", "10:00 +0100"),
        ("'EST'", "04:00 -0500"),
    ])
    func timeZonesTheDocsUse(_ zone: String, _ expected: String) throws {
        let doc = try document(#"{"now": "2026-07-01T09:00:00Z"}"#)
        let template = try BrazeDialect().environment().parse("{{ 'now' | time_zone: \(zone) | date: '%H:%M %z' }}")
        let context = template.makeContext(doc.value, options: doc.renderOptions())
        try template.render(into: context)
        #expect(context.output == expected)
        #expect(context.warnings.isEmpty, "\(context.warnings)")
    }

    @Test(arguments: ["'+25:00'", "'-05:75'", "99", "2500", "'Mars/Olympus'", "''", "'+1'", "nil"])
    func badOffsetsAreUnknownZones(_ zone: String) throws {
        let doc = try document(#"{"now": "2026-07-01T09:00:00Z"}"#)
        let template = try BrazeDialect().environment().parse("{{ 'now' | time_zone: \(zone) | date: '%H' }}")
        let context = template.makeContext(doc.value, options: doc.renderOptions())
        try template.render(into: context)
        if zone == "'+1'" {
            #expect(context.output == "10")  // one hour, written with its sign
        } else {
            #expect(context.output == "09")
            #expect(context.warnings.count == 1)
        }
    }

    @Test func contentBlocksFromADirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blocks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "Bye {{${first_name}}}".write(to: dir.appendingPathComponent("footer.liquid"), atomically: true, encoding: .utf8)
        let dialect = BrazeDialect(contentBlocks: DirectoryContentBlocks(directory: dir))
        #expect(try brazeRender("{{content_blocks.${footer}}}", try document(#"{"profile": {"first_name": "Al"}}"#), dialect: dialect) == .rendered("Bye Al"))
        let error = liquidError { try brazeRender("x\n{{content_blocks.${missing}}}", try document("{}"), dialect: dialect) }
        #expect(error?.reason == .custom("content block 'missing' not found"))
        #expect(error?.location == SourceLocation(line: 2, column: 1))
    }
}

/// Content blocks nest as Braze's do: a block in the message and a block inside it; deeper
/// ones are removed from the message, with a warning at the reference.
@Suite struct ContentBlockNestingTests {
    let blocks = InMemoryContentBlocks([
        "outer": "[outer {{content_blocks.${middle}}}]",
        "middle": "[middle\n{{content_blocks.${inner}}}]",
        "inner": "[inner]",
        "self": "me{{content_blocks.${self}}}",
        "big": String(repeating: "x", count: maxContentBlockBytes + 1),
    ])

    func render(_ source: String) throws -> (text: String, warnings: [LiquidError]) {
        let env = BrazeDialect(contentBlocks: blocks).environment()
        let message = try MessageTemplate(fields: [(name: "body", source: source)], environment: env)
        var texts = MessageTemplate.RenderedTexts()
        _ = try message.render(try document("{}"), into: &texts)
        return (texts.text(0), texts.warnings.map(\.warning))
    }

    @Test func twoLevelsExpandAndTheThirdIsRemoved() throws {
        let (text, warnings) = try render("{{content_blocks.${outer}}}")
        #expect(text == "[outer [middle\n]]")
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("content block 'inner' is nested 3 deep") == true)
        // At the reference, in the block that makes it.
        #expect(warnings.first?.templateName == "content_blocks/middle")
        #expect(warnings.first?.location == SourceLocation(line: 2, column: 3))
        #expect(try render("{{content_blocks.${middle}}}").text == "[middle\n[inner]]")
    }

    @Test func aBlockIncludingItselfStopsAtTheSecondLevel() throws {
        let (text, warnings) = try render("{{content_blocks.${self}}}")
        #expect(text == "meme")
        #expect(warnings.count == 1)
    }

    @Test func aBlockOverBrazesSizeLimitIsAnError() throws {
        #expect {
            _ = try render("{{content_blocks.${big}}}")
        } throws: { error in
            (error as? MessageTemplate.FieldError)?.error.message.contains("over Braze's 50 KB limit") == true
        }
    }
}
