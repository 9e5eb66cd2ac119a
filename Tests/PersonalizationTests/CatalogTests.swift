import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import Testing

/// Braze catalogs: `{% catalog_items NAME ID... %}` over CSV and JSON catalog files.
@Suite struct CatalogTests {
    /// The docs' example catalog, with a typed column of each kind and a cell that quotes.
    static let gamesCSV = #"""
        id,title,price,image_link,players,in_stock,tagline
        1234,Tales,7.49,https://picsum.photos/200,1,true,"Stories, told"
        1235,Regeneration,22.49,https://picsum.photos/200,4,false,"A ""remake"""
        1236,Acaratus,5,https://picsum.photos/200,2,true,
        greet_msg,Welcome,0,,,,"Welcome to our store, {{${first_name}}}!"

        """#

    func dialect() throws -> BrazeDialect {
        let games = try Catalog(csv: Self.gamesCSV, name: "games", file: "Catalogs/games.csv")
        let messages = try Catalog(json: #"{"items": [{"id": "greet", "Welcome_Message": "Welcome to our store, {{${first_name}}}!"}, {"id": "loop", "text": "{% catalog_items games 1234 %}"}]}"#,
                                   name: "Messages", file: "Catalogs/Messages.json")
        return BrazeDialect(catalogs: InMemoryCatalogs([games, messages]))
    }

    func render(_ source: String, _ json: String = #"{"profile": {"first_name": "Peter", "custom_attributes": {"wishlist": ["1235", "1236"]}}}"#) throws -> (String, [LiquidError]) {
        let doc = try document(json)
        let template = try dialect().environment().parse(source, name: "body")
        let context = template.makeContext(doc.value, options: doc.renderOptions())
        try template.render(into: context)
        return (context.output, context.warnings)
    }

    @Test func theDocsExamples() throws {
        #expect(try render("{% catalog_items games 1234 %}Get {{ items[0].title }} for just {{ items[0].price }}!").0 == "Get Tales for just 7.49!")
        #expect(try render("Get the ultimate trio {% catalog_items games 1234 1235 1236 %}{{ items[0].title }}, {{ items[1].title }}, and {{ items[2].title }} today!").0
                == "Get the ultimate trio Tales, Regeneration, and Acaratus today!")
        // Templated: the catalog's name and the ids.
        #expect(try render("{% assign wishlist = {{custom_attribute.${wishlist}}} %}{% catalog_items games {{ wishlist[0] }} %}Get {{ items[0].title }} now, for just {{ items[0].price }}!").0
                == "Get Regeneration now, for just 22.49!")
        #expect(try render("{% assign cat = 'games' %}{% catalog_items {{cat}} 1236 %}{{ items.size }} {{ items[0].title }}").0 == "1 Acaratus")
    }

    @Test func columnsAreTypedAsBrazesUploadTypesThem() throws {
        let (text, _) = try render("{% catalog_items games 1234 1236 %}{{ items[0].players | plus: 1 }} {{ items[1].price }} {% if items[0].in_stock %}in stock{% endif %} [{{ items[1].tagline }}] {{ items[0].tagline }}")
        #expect(text == "2 5.0 in stock [] Stories, told")
        #expect(try render("{% catalog_items games 1235 %}{{ items[0].tagline }}|{{ items[0].id }}").0 == "A \"remake\"|1235")
    }

    @Test func aMissingItemLeavesItOutWithAWarning() throws {
        let (text, warnings) = try render("x\n{% catalog_items games 9999 1234 %}{{ items.size }} {{ items[0].title }}{% if items.size < 2 %} (one missing){% endif %}")
        #expect(text == "x\n1 Tales (one missing)")
        #expect(warnings.map(\.message) == ["catalog_items: no item '9999' in catalog 'games'; items holds only the items found"])
        #expect(warnings.first?.location == SourceLocation(line: 2, column: 1))
    }

    @Test func aMissingCatalogIsAnError() throws {
        let error = liquidError { _ = try render("{% catalog_items nope 1 %}") }
        #expect(error?.message == "catalog_items: no catalog 'nope'")
        let doc = try document("{}")
        let none = liquidError { _ = try BrazeDialect().environment().parse("{% catalog_items games 1 %}").renderMessage(doc) }
        #expect(none?.message.contains("no catalogs are configured") == true)
    }

    @Test func rerenderRendersTheItemsLiquidOneLevelDeep() throws {
        #expect(try render("Hi ${first_name}\n{% catalog_items Messages greet :rerender %}{{ items[0].Welcome_Message }}").0 == "Hi ${first_name}\nWelcome to our store, Peter!")
        // Without :rerender, the raw Liquid.
        #expect(try render("{% catalog_items Messages greet %}{{ items[0].Welcome_Message }}").0 == "Welcome to our store, {{${first_name}}}!")
        // Catalog tags cannot be used inside catalogs.
        let error = liquidError { _ = try render("{% catalog_items Messages loop :rerender %}") }
        #expect(error?.message.contains("catalog tags cannot be used inside a catalog item") == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        ("{% catalog_items %}", "catalog_items needs a catalog name and item ids"),
        ("{% catalog_items games %}", "catalog_items needs at least one item id after the catalog name 'games'"),
        ("{% catalog_items games 1 :frobnicate %}", "catalog_items: unknown option ':frobnicate' (only :rerender)"),
        ("{% catalog_items ga/mes 1 %}", "catalog_items: 'ga/mes' is not a catalog name"),
        ("{% catalog_selection_items games sel %}", "catalog_selection_items: catalog selections are defined in Braze's dashboard"),
    ])
    func badTagsAreSyntaxErrors(_ source: String, _ message: String) throws {
        let error = liquidError { try dialect().environment().parse(source) }
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        ("title,id\nx,1\n", 1, 1, "the first column of a catalog is 'id', got 'title'"),
        ("id,a,a\n1,2,3\n", 1, 6, "the column 'a' is given twice"),
        ("id,a\n1,2\n1,3\n", 3, 1, "the id '1' is given twice"),
        ("id,a\n1,2,3\n", 2, 1, "this row has 3 cells, the header 2"),
        ("id,a\n1,\"open\n", 2, 3, "a quoted cell is not closed"),
        ("id,a\n1,\"x\"y\n", 2, 6, "text after a closing quote"),
        ("", nil, nil, "the file is empty"),
    ] as [(String, Int?, Int?, String)])
    func badCSVIsAnErrorAtItsPlace(_ csv: String, _ line: Int?, _ column: Int?, _ message: String) {
        #expect {
            _ = try Catalog(csv: csv, name: "c", file: "Catalogs/c.csv")
        } throws: { error in
            guard let e = error as? CatalogError else { return false }
            return e.message.hasPrefix(message) && e.location?.line == line && e.location?.column == column && e.file == "Catalogs/c.csv"
        }
    }

    @Test func jsonCatalogsInEachShape() throws {
        for text in [#"[{"id": 1, "n": 2.5}, {"id": "b", "tags": ["x"]}]"#, #"{"items": [{"id": 1, "n": 2.5}, {"id": "b", "tags": ["x"]}]}"#,
                     "{\"id\": 1, \"n\": 2.5}\n{\"id\": \"b\", \"tags\": [\"x\"]}\n"] {
            let c = try Catalog(json: text, name: "j", file: "j.json")
            #expect(c.ids == ["1", "b"])
            #expect(c.items["1"]?.property("n") == 2.5)
            #expect(c.items["b"]?.property("tags") == ["x"])
        }
        #expect(throws: CatalogError.self) { try Catalog(json: #"[{"n": 1}]"#, name: "j", file: "j.json") }
        #expect(throws: CatalogError.self) { try Catalog(json: #"[{"id": 1}, {"id": "1"}]"#, name: "j", file: "j.json") }
        #expect(throws: CatalogError.self) { try Catalog(json: "{\"id\": 1}\n{\"id\": ", name: "j", file: "j.json") }
    }

    @Test func catalogsFromAFolder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("catalogs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.gamesCSV.write(to: dir.appendingPathComponent("games.csv"), atomically: true, encoding: .utf8)
        try "id,x\n1,\"bad\n".write(to: dir.appendingPathComponent("broken.csv"), atomically: true, encoding: .utf8)
        let source = DirectoryCatalogs(directory: dir)
        #expect(try source.catalog(named: "games")?.items.count == 4)
        #expect(try source.catalog(named: "absent") == nil)
        #expect(try source.catalog(named: "../etc") == nil)
        #expect(throws: CatalogError.self) { try source.catalog(named: "broken") }
        let doc = try document("{}")
        let error = liquidError { _ = try BrazeDialect(catalogs: source).environment().parse("{% catalog_items broken 1 %}").renderMessage(doc) }
        #expect(error?.message.hasPrefix("catalog_items: \(dir.lastPathComponent)/broken.csv:2:3: a quoted cell is not closed") == true, "\(String(describing: error))")
    }
}
