import Foundation
import Liquid
import Personalization
import PushPayload
import Testing

/// What `check` knows before any send, each at its place in the campaign file.
@Suite struct CampaignCheckTests {
    func diagnostics(_ yaml: String, blocks: [String: String] = ["known": "k"]) throws -> [CampaignDiagnostic] {
        let campaign = try Campaign(yaml: yaml, file: "c.yml")
        return try CompiledCampaign(campaign, dialect: BrazeDialect(contentBlocks: InMemoryContentBlocks(blocks)), fileText: yaml).checkDiagnostics()
    }

    /// The one diagnostic of `title` holding `title`, as (severity, line, column, message).
    func only(_ title: String) throws -> (CampaignDiagnostic.Severity, Int?, Int?, String)? {
        let found = try diagnostics("name: c\ntitle: '\(title)'\nbody: b\n")
        #expect(found.count == 1, "\(found)")
        return found.first.map { ($0.severity, $0.location?.line, $0.location?.column, $0.message) }
    }

    @Test func filters() throws {
        let unknown = try only("{{ x | upcas }}")
        #expect(unknown?.0 == .error && unknown?.2 == 16)
        #expect(unknown?.3 == "unknown filter 'upcas'; did you mean 'upcase'?")
        let arity = try only("{{ x | hmac_sha256 }}")
        #expect(arity?.0 == .error && arity?.2 == 16)
        #expect(arity?.3 == "filter 'hmac_sha256' takes 1 argument, got 0")
        #expect(try diagnostics("name: c\ntitle: '{{ x | upcase | hmac_sha256: \"k\" }}'\nbody: b\n").isEmpty)
        let lstrip = try only("{{ x | lstrip }}")
        #expect(lstrip?.0 == .warning && lstrip?.2 == 16 && lstrip?.3.hasPrefix("Braze's documentation lists the 'lstrip' filter as not supported") == true)
    }

    @Test func attributeReferences() throws {
        let misspelled = try only("Hi {{${firstname}}}")
        #expect(misspelled?.0 == .warning && misspelled?.2 == 14)
        #expect(misspelled?.3.hasSuffix("did you mean ${first_name}?") == true)
        let namespace = try only("{{custom_attributes.${points}}}")
        #expect(namespace?.0 == .warning && namespace?.2 == 11)
        #expect(namespace?.3 == "Braze's namespace is custom_attribute: did you mean custom_attribute.${points}?")
        let nearNamespace = try only("{{api_trigger_propertes.${x}}}")
        #expect(nearNamespace?.3 == "unknown namespace 'api_trigger_propertes'; did you mean api_trigger_properties.${x}?")
        let outside = try only("Hi ${first_name}")
        #expect(outside?.0 == .warning && outside?.2 == 12)
        // A reference the dashboard refuses is a syntax error of the field, located.
        for (title, column) in [("{{ ${first_name }}", 26), ("{{ ${} }}", 12), ("{{ $first_name }}", 12), ("{{${first_name}}", 24)] {
            #expect {
                try diagnostics("name: c\ntitle: '\(title)'\nbody: b\n")
            } throws: { error in
                "\(error)".contains("c.yml:2:\(column): error: in title:")
            }
        }
        #expect(try diagnostics("name: c\ntitle: '{{${first_name}}} {{custom_attribute.${a b}}} {{most_recently_used_device.${model}}}'\nbody: b\n").isEmpty)
        // Documented, but for other channels: empty in a push, and said so.
        #expect(try only("{{card.${name}}}")?.3 == "card.${name} is a Content Card attribute: in a push it is empty")
        #expect(try only("{{${set_user_to_unsubscribed_url}}}")?.3 == "${set_user_to_unsubscribed_url} is an email list attribute: Braze fills it in e-mails only, so in a push it is empty")
        #expect(try diagnostics("name: c\ntitle: '{{targeted_device.${model}}} {{${random_bucket_number}}} {{${most_recent_location}.latitude}} {{subscribed_state.${email_global}}} {{campaign.${dispatch_id}}} {{canvas.${variant_name}}}'\nbody: b\n").isEmpty)
    }

    @Test func contentBlocks() throws {
        let missing = try only("{{content_blocks.${nope}}}")
        #expect(missing?.0 == .error && missing?.2 == 11)
        #expect(missing?.3 == "content block 'nope' not found")
        #expect(try diagnostics("name: c\ntitle: '{{content_blocks.${known}}}'\nbody: b\n").isEmpty)
        // Blocks inside blocks: a missing one, and one nested deeper than Braze expands.
        let blocks = ["a": "x\n  {{content_blocks.${b}}}", "b": "{{content_blocks.${c}}}{{content_blocks.${gone}}}", "c": "c"]
        let nested = try diagnostics("name: c\ntitle: '{{content_blocks.${a}}}'\nbody: b\n", blocks: blocks)
        #expect(nested.map(\.severity) == [.warning, .warning])
        #expect(nested.first?.message == "content block 'c' is nested 3 deep (at content_blocks/b.liquid:1:3); Braze expands content blocks 2 deep and removes deeper ones, so it inserts nothing")
        #expect(nested.last?.message.hasPrefix("content block 'gone' is nested 3 deep (at content_blocks/b.liquid:1:26)") == true)
        #expect(nested.allSatisfy { $0.location == SourceLocation(line: 2, column: 11) })
        let missingInner = try diagnostics("name: c\ntitle: '{{content_blocks.${b}}}'\nbody: b\n", blocks: blocks)
        #expect(missingInner.map(\.message) == ["content block 'gone' not found (at content_blocks/b.liquid:1:26)"])
    }

    @Test func catalogs() throws {
        let games = try Catalog(csv: "id,title\n1234,Tales\n", name: "games", file: "games.csv")
        func check(_ title: String, catalogs: (any CatalogSource)? = InMemoryCatalogs([games])) throws -> (CompiledCampaign, [CampaignDiagnostic]) {
            let yaml = "name: c\ntitle: '\(title)'\nbody: b\n"
            let c = try CompiledCampaign(try Campaign(yaml: yaml, file: "c.yml"), dialect: BrazeDialect(catalogs: catalogs), fileText: yaml)
            return (c, c.checkDiagnostics())
        }
        let (ok, none) = try check("{% catalog_items games 1234 %}{{ items[0].title }}{% catalog_items {{name}} 1 %}")
        #expect(none.isEmpty && ok.catalogsRead == ["games"])
        let missingItem = try check("{% catalog_items games 1234 77 :rerender %}").1
        #expect(missingItem.map(\.message) == ["catalog 'games' has no item '77'; items will hold only the items found"])
        #expect(missingItem.first?.severity == .warning && missingItem.first?.location == SourceLocation(line: 2, column: 9))
        let missing = try check("x {%- catalog_items gamez 1 -%}").1
        #expect(missing.map(\.message) == ["catalog 'gamez' not found"] && missing.first?.severity == .error)
        #expect(missing.first?.location == SourceLocation(line: 2, column: 11))
        #expect(try check("{% catalog_items games 1 %}", catalogs: nil).1.first?.message.contains("no catalogs are configured") == true)
    }

    @Test func promotionCodeLists() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("check-promo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "A1\nA2\n".write(to: dir.appendingPathComponent("spring.csv"), atomically: true, encoding: .utf8)
        try "code\n".write(to: dir.appendingPathComponent("empty.csv"), atomically: true, encoding: .utf8)
        func check(_ title: String) throws -> (CompiledCampaign, [CampaignDiagnostic]) {
            let yaml = "name: c\ntitle: \"\(title)\"\nbody: b\n"
            let c = try CompiledCampaign(try Campaign(yaml: yaml, file: "c.yml"), dialect: BrazeDialect(promotionCodes: PromotionCodeLedger(directory: dir, consume: false)), fileText: yaml)
            return (c, c.checkDiagnostics())
        }
        let (ok, none) = try check("{% promotion('spring') %} {% promotion({{x}}) %}")
        #expect(none.isEmpty && ok.promotionListsRead == ["spring"])
        let missing = try check("x {% promotion('autumn') %}").1
        #expect(missing.map(\.message) == ["promotion code list 'autumn' not found (no \(dir.lastPathComponent)/autumn.csv)"])
        #expect(missing.first?.severity == .error && missing.first?.location == SourceLocation(line: 2, column: 11))
        let empty = try check("{% promotion('empty') %}").1
        #expect(empty.first?.severity == .warning && empty.first?.message.contains("has no codes left") == true)
    }

    @Test func valuesThatCannotWork() throws {
        let badge = try diagnostics("name: c\ntitle: t\nbody: b\nios:\n  badge: notanumber\n")
        #expect(badge.map(\.message) == ["ios.badge must be an integer, got 'notanumber'"])
        #expect(badge.first?.location == SourceLocation(line: 5, column: 10))
        #expect(try diagnostics("name: c\ntitle: t\nbody: b\nios:\n  badge: \"{{ custom_attribute.${n} }}\"\n").isEmpty, "Liquid is checked at render")
        let json = try diagnostics("name: c\ntitle: t\nbody: b\nkey_value_pairs:\n  d: \"$json:{\\\"a\\\": tru}\"\n")
        #expect(json.map(\.message) == ["invalid $json: value: invalid literal"])
        #expect(json.first?.location == SourceLocation(line: 5, column: 21), "escapes in the YAML are counted")
        let abort = try only("{% abort_message \"x\" %}")
        #expect(abort?.0 == .error && abort?.2 == 9)
        #expect(try diagnostics("name: c\ntitle: '{% abort_message(\"x\") %}{%- abort_message () -%}'\nbody: b\n").isEmpty)
    }

    @Test func descriptionsAreCompilerStyle() {
        let d = CampaignDiagnostic(.error, file: "c.yml", location: SourceLocation(line: 2, column: 3), field: "title", message: "m")
        #expect(d.description == "c.yml:2:3: error: in title: m")
        #expect(CampaignDiagnostic(file: "c.yml", location: nil, field: "", message: "m").description == "c.yml: warning: m")
    }
}
