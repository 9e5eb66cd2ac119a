import Foundation
import Liquid

/// `{% catalog_items NAME ID... %}` and `{% catalog_items NAME ID... :rerender %}`: the items
/// of the catalog `NAME` with those ids, as an array in `items` (`{{ items[0].title }}`).
/// The name and each id may hold Liquid output (`{% catalog_items {{lang}} {{ wishlist[0] }} %}`).
///
/// As Braze's docs describe it: an id that is not in the catalog gives no item (`items` has
/// the items found; a warning names the id); a catalog that does not exist is an error; with
/// `:rerender`, the Liquid in an item's string fields is rendered in the message's scope, one
/// level deep (a field's own `catalog_items` is refused: catalog tags cannot be used inside
/// catalogs).
struct CatalogItemsTag: LiquidTag {
    let name = "catalog_items"
    let catalogs: (any CatalogSource)?
    /// Item fields parsed for `:rerender`, shared by every render of this dialect.
    let rerendered = RerenderCache()

    /// A part of the markup: its text, parsed when it holds Liquid.
    struct Part: Sendable {
        let text: String
        let template: LiquidTemplate?
        let offset: Int

        func render(_ context: RenderContext) throws -> String {
            guard let template else { return text }
            return try context.capture { try context.renderPartial(template, name: "catalog_items") }.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    struct Node: LiquidNode {
        let catalogName: Part
        let ids: [Part]
        let rerender: Bool
        let catalogs: (any CatalogSource)?
        let rerendered: RerenderCache
        let offset: Int

        func render(_ context: RenderContext) throws {
            guard let catalogs else {
                throw LiquidError.Reason.custom("catalog_items: no catalogs are configured (a Catalogs/ folder beside Templates/)")
            }
            let name = try catalogName.render(context)
            let catalog: Catalog?
            do { catalog = try catalogs.catalog(named: name) } catch let error as CatalogError {
                throw LiquidError.Reason.custom("catalog_items: \(error)")
            }
            guard let catalog else {
                throw LiquidError.Reason.custom("catalog_items: no catalog '\(name)'" + ((catalogs as? DirectoryCatalogs).map { " (no \($0.directory.lastPathComponent)/\(name).csv or .json)" } ?? ""))
            }
            var items: [LiquidValue] = []
            var missing: [String] = []
            for part in ids {
                let id = try part.render(context)
                guard let item = catalog.items[id] else { missing.append(id); continue }
                items.append(rerender ? try rerendered.render(item, catalog: catalog.name, id: id, context) : item)
            }
            if !missing.isEmpty {
                context.warn("catalog_items: no item \(missing.map { "'\($0)'" }.joined(separator: ", ")) in catalog '\(catalog.name)'; items holds only the items found", at: offset)
            }
            try context.store("items", .array(items))
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        var chunks = splitTagMarkup(tag.markup, baseOffset: tag.markupOffset)
        var rerender = false
        if let i = chunks.firstIndex(where: { $0.text == ":rerender" }) {
            rerender = true
            chunks.remove(at: i)
        }
        if let option = chunks.first(where: { $0.text.hasPrefix(":") }) {
            throw LiquidError.Reason.syntax("catalog_items: unknown option '\(option.text)' (only :rerender)").at(option.offset)
        }
        guard let first = chunks.first else {
            throw LiquidError.Reason.syntax("catalog_items needs a catalog name and item ids: {% catalog_items games 1234 %}").at(tag.offset)
        }
        guard chunks.count > 1 else {
            throw LiquidError.Reason.syntax("catalog_items needs at least one item id after the catalog name '\(first.text)'").at(first.offset)
        }
        func part(_ chunk: TagMarkupChunk) throws -> Part {
            guard chunk.text.contains("{{") || chunk.text.contains("{%") else { return Part(text: chunk.text, template: nil, offset: chunk.offset) }
            do { return Part(text: chunk.text, template: try parser.environment.parse(chunk.text, name: "catalog_items"), offset: chunk.offset) }
            catch let e as LiquidError { throw e.reason.at(chunk.offset) }
        }
        if !(first.text.contains("{{") || first.text.contains("{%")), !DirectoryCatalogs.isValidName(first.text) {
            throw LiquidError.Reason.syntax("catalog_items: '\(first.text)' is not a catalog name (letters, digits, hyphens and underscores)").at(first.offset)
        }
        return Node(catalogName: try part(first), ids: try chunks.dropFirst().map(part), rerender: rerender,
                    catalogs: catalogs, rerendered: rerendered, offset: tag.offset)
    }
}

/// The Liquid of catalog items' string fields, parsed once (`:rerender`), in an environment
/// whose `catalog_items` is refused (catalog tags cannot be used inside catalogs).
final class RerenderCache: @unchecked Sendable {
    private let lock = NSLock()
    private var templates: [String: LiquidTemplate] = [:]
    private var environment: LiquidEnvironment?

    /// `item` with each string field that holds Liquid rendered in `context` (one level: the
    /// output is not rendered again).
    func render(_ item: LiquidValue, catalog: String, id: String, _ context: RenderContext) throws -> LiquidValue {
        guard case .object(var o) = item else { return item }
        for (field, value) in o {
            guard case .string(let text) = value, text.contains("{{") || text.contains("{%") else { continue }
            let template = try self.template(text, name: "catalogs/\(catalog)/\(id).\(field)", context.environment)
            o[field] = .string(try context.capture { try context.renderPartial(template, name: "catalogs/\(catalog)/\(id).\(field)") })
        }
        return .object(o)
    }

    private func template(_ text: String, name: String, _ base: LiquidEnvironment) throws -> LiquidTemplate {
        lock.lock()
        if let t = templates[name] { lock.unlock(); return t }
        var env = environment ?? {
            var e = base
            e.register(RefusedTag(name: "catalog_items", why: "catalog tags cannot be used inside a catalog item (Braze's rule)"))
            return e
        }()
        environment = env
        lock.unlock()
        env.errorMode = base.errorMode
        let t = try env.parse(text, name: name)
        lock.lock()
        templates[name] = t
        lock.unlock()
        return t
    }
}

/// A Braze tag this engine does not carry out: a syntax error saying why, at the tag, rather
/// than "unknown tag".
struct RefusedTag: LiquidTag {
    let name: String
    let why: String
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        throw LiquidError.Reason.syntax("\(name): \(why)").at(tag.offset)
    }
}
