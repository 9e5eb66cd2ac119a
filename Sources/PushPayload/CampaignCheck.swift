import Foundation
import Liquid
import Personalization

extension CompiledCampaign {
    /// Everything that is certain, before any send, to fail or not to be what the author meant,
    /// each at its place in the campaign file (for `pushliquid check`):
    ///
    /// - errors: a filter the dialect does not have ("did you mean" the nearest one), a filter
    ///   given the wrong number of arguments, a content block that does not exist, a `$json:`
    ///   value without Liquid that is not JSON, an `ios.badge` without Liquid that is not an
    ///   integer, a malformed `${...}` reference;
    /// - warnings: a `${name}` that is not a Braze standard attribute, a namespace that is not
    ///   one (`custom_attributes.${x}`: did you mean `custom_attribute`?), a `${...}` outside
    ///   `{{ }}` (sent as written).
    public func checkDiagnostics() -> [CampaignDiagnostic] {
        var out: [CampaignDiagnostic] = []
        for (field, template) in fields {
            func at(_ offset: Int) -> SourceLocation {
                field.fileLocation(of: SourceLocation(utf8Offset: offset, in: field.source), fileText: fileText)
            }
            func report(_ severity: CampaignDiagnostic.Severity, _ location: SourceLocation?, _ message: String) {
                out.append(CampaignDiagnostic(severity, file: campaign.file, location: location, field: field.name, message: message))
            }
            for problem in template.filterProblems {
                var message = problem.message
                if case .unknownFilter(let name) = problem.reason,
                   let near = nearest(name, in: template.environment.filters.keys.filter { !$0.hasPrefix("_") }) {
                    message += "; did you mean '\(near)'?"
                }
                let location = problem.location.map { field.fileLocation(of: $0, fileText: fileText) }
                report(.error, location, message)
            }
            // What tags noted while parsing (a message_extras tag Braze would not pass on).
            for warning in template.warnings where warning.templateName == field.name {
                report(.warning, warning.location.map { field.fileLocation(of: $0, fileText: fileText) }, warning.message)
            }
            for reference in AttributeScan.references(in: field.source) {
                check(reference, report: { report($0, at(reference.offset), $1) })
            }
            for use in AttributeScan.tags(named: "catalog_items", in: field.source) {
                checkCatalogUse(use.markup, report: { report($0, at(use.offset), $1) })
            }
            for (name, offset) in AttributeScan.filterUses(of: BrazeDialect.filtersBrazeListsAsUnsupported, in: field.source) {
                report(.warning, at(offset), "Braze's documentation lists the '\(name)' filter as not supported: it works here (standard Liquid), and may pass its input through unchanged in Braze")
            }
            for use in AttributeScan.tags(named: "promotion", in: field.source) {
                checkPromotionUse(use.markup, report: { report($0, at(use.offset), $1) })
            }
            for offset in AttributeScan.abortMessagesWithoutParentheses(in: field.source) {
                report(.error, at(offset), "abort_message takes its reason in parentheses: {% abort_message('reason') %} or {% abort_message() %}")
            }
            let source = field.source
            let hasLiquid = source.contains("{{") || source.contains("{%")
            if field.name == "ios.badge", !hasLiquid, Int(source.trimmingCharacters(in: .whitespacesAndNewlines)) == nil {
                report(.error, at(0), "ios.badge must be an integer, got '\(source)'")
            }
            if field.name.hasPrefix("key_value_pairs."), source.hasPrefix("$json:"), !hasLiquid {
                var parser = JSONValueParser(String(source.dropFirst(6)))
                do { _ = try parser.parse() } catch let e as JSONValueParser.SyntaxError {
                    let inner = e.line == 1 ? SourceLocation(line: 1, column: e.column + 6) : SourceLocation(line: e.line, column: e.column)
                    report(.error, field.fileLocation(of: inner, fileText: fileText), "invalid $json: value: \(e.message)")
                } catch {
                    report(.error, at(0), "invalid $json: value: \(error)")
                }
            }
        }
        return out
    }

    /// The catalogs the campaign's fields read by name (`{% catalog_items games 1234 %}`), in
    /// order of first use; names written as Liquid are known only when rendering.
    public var catalogsRead: [String] {
        var names: [String] = []
        for (field, _) in fields {
            for use in AttributeScan.tags(named: "catalog_items", in: field.source) {
                guard let name = BrazeTagMarkup.parts(use.markup).first,
                      !name.contains("{{"), !names.contains(name) else { continue }
                names.append(name)
            }
        }
        return names
    }

    /// The promotion code lists the campaign's fields name literally (`{% promotion('spring') %}`).
    public var promotionListsRead: [String] {
        var names: [String] = []
        for (field, _) in fields {
            for use in AttributeScan.tags(named: "promotion", in: field.source) {
                if let name = Self.literalListName(use.markup), !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    /// The list name of a `promotion` tag's markup when it is a quoted literal: `('spring')`.
    static func literalListName(_ markup: String) -> String? {
        var m = Substring(markup.trimmingCharacters(in: .whitespaces))
        if m.hasPrefix("(") && m.hasSuffix(")") { m = m.dropFirst().dropLast() }
        let t = m.trimmingCharacters(in: .whitespaces)
        guard t.count >= 2, let q = t.first, q == "'" || q == "\"", t.last == q else { return nil }
        let name = String(t.dropFirst().dropLast())
        return name.contains(q) ? nil : name
    }

    /// Checks one `{% promotion('list') %}`: the list (when named literally) must exist and
    /// read, and should have codes left.
    private func checkPromotionUse(_ markup: String, report: (CampaignDiagnostic.Severity, String) -> Void) {
        guard let name = Self.literalListName(markup) else { return }
        guard let source = dialect.promotionCodes else {
            report(.error, "promotion code list '\(name)' cannot be found: no promotion code lists are configured (a PromotionCodes/ folder beside Templates/)")
            return
        }
        guard let ledger = source as? PromotionCodeLedger else { return }
        guard ledger.file(of: name) != nil else {
            report(.error, "promotion code list '\(name)' not found (no \(ledger.directory.lastPathComponent)/\(name).csv)")
            return
        }
        do {
            let left = try ledger.remaining(in: name)
            if left == 0 { report(.warning, "promotion code list '\(name)' has no codes left: every message that shows one aborts") }
        } catch {
            report(.error, "promotion code list '\(name)' cannot be read: \(error)")
        }
    }

    /// Checks one `{% catalog_items NAME ID... %}`: the catalog (when named literally) must
    /// exist and read, and the literal ids should be in it.
    private func checkCatalogUse(_ markup: String, report: (CampaignDiagnostic.Severity, String) -> Void) {
        let words = BrazeTagMarkup.parts(markup).filter { $0 != ":rerender" }
        guard let name = words.first, !name.contains("{{"), !name.contains("{%") else { return }
        guard let catalogs = dialect.catalogs else {
            report(.error, "catalog '\(name)' cannot be found: no catalogs are configured (a Catalogs/ folder beside Templates/)")
            return
        }
        let catalog: Catalog?
        do { catalog = try catalogs.catalog(named: name) } catch {
            report(.error, "catalog '\(name)' cannot be read: \(error)")
            return
        }
        guard let catalog else {
            let place = (catalogs as? DirectoryCatalogs).map { " (no \($0.directory.lastPathComponent)/\(name).csv or .json)" } ?? ""
            report(.error, "catalog '\(name)' not found\(place)")
            return
        }
        let missing = words.dropFirst().filter { !$0.contains("{{") && !$0.contains("{%") && catalog.items[$0] == nil }
        if !missing.isEmpty {
            report(.warning, "catalog '\(name)' has no item \(missing.map { "'\($0)'" }.joined(separator: ", ")); items will hold only the items found")
        }
    }

    /// The first field that mentions `text` (an attribute reference as written) and where, in
    /// the campaign file.
    public func firstUse(of text: String) -> (field: String, location: SourceLocation)? {
        for (field, _) in fields {
            guard let range = field.source.range(of: text) else { continue }
            let offset = field.source.utf8.distance(from: field.source.startIndex, to: range.lowerBound)
            return (field.name, field.fileLocation(of: SourceLocation(utf8Offset: offset, in: field.source), fileText: fileText))
        }
        return nil
    }

    /// Checks one `${...}` reference.
    private func check(_ reference: AttributeScan.Reference, report: (CampaignDiagnostic.Severity, String) -> Void) {
        guard let name = reference.name else {
            report(.error, "malformed attribute reference '\(reference.text)' (write ${name}, inside {{ }})")
            return
        }
        if !reference.inMarkup {
            report(.warning, "'\(reference.text)' is outside {{ }} and is sent as written")
        }
        switch reference.namespace {
        case nil where AttributeScan.emailAttributes.contains(name):
            report(.warning, "${\(name)} is an email list attribute: Braze fills it in e-mails only, so in a push it is empty")
        case nil:
            if BrazeAttributeSyntax.standardAttributes[name] == nil {
                var message = "${\(name)} is not a Braze standard attribute (it reads the profile's '\(name)', which Braze does not have)"
                if let near = nearest(name, in: Array(BrazeAttributeSyntax.standardAttributes.keys)) {
                    message += "; did you mean ${\(near)}?"
                }
                report(.warning, message)
            }
        case "custom_attributes"?:
            report(.warning, "Braze's namespace is custom_attribute: did you mean custom_attribute.${\(name)}?")
        case "content_blocks"?:
            guard let blocks = dialect.contentBlocks else {
                report(.error, "content block '\(name)' cannot be found: no content blocks are configured")
                return
            }
            let found: String?
            do { found = try blocks.contentBlock(named: name) } catch {
                report(.error, "content block '\(name)' cannot be read: \(error)")
                return
            }
            guard let found else {
                let place = (blocks as? DirectoryContentBlocks).map { " in \($0.directory.lastPathComponent)/" } ?? ""
                report(.error, "content block '\(name)' not found\(place)")
                return
            }
            checkNestedBlocks(in: name, source: found, depth: 1, blocks: blocks, report: report)
        case let namespace? where AttributeScan.otherChannelNamespaces[namespace] != nil:
            report(.warning, "\(namespace).${\(name)} is \(AttributeScan.otherChannelNamespaces[namespace]!): in a push it is empty")
        case let namespace?:
            let known = RenderContextDocument.namespaces + ["custom_attribute", "content_blocks"] + AttributeScan.profileNamespaces
            if !known.contains(namespace), let near = nearest(namespace, in: known) {
                report(.warning, "unknown namespace '\(namespace)'; did you mean \(near).${\(name)}?")
            }
        }
    }

    /// Checks the content blocks that the block `name` (at `depth`, 1 for a block the field
    /// references) references: one missing is an error, one nested deeper than Braze expands
    /// a warning, each naming the block file, line and column of the reference.
    private func checkNestedBlocks(in name: String, source: String, depth: Int, blocks: any ContentBlockSource,
                                   report: (CampaignDiagnostic.Severity, String) -> Void) {
        for reference in AttributeScan.references(in: source) where reference.namespace == "content_blocks" {
            guard let inner = reference.name else { continue }
            let at = SourceLocation(utf8Offset: reference.offset, in: source)
            let place = "(at content_blocks/\(name).liquid:\(at.line):\(at.column))"
            if depth + 1 > maxContentBlockDepth {
                report(.warning, "content block '\(inner)' is nested \(depth + 1) deep \(place); Braze expands content blocks \(maxContentBlockDepth) deep and removes deeper ones, so it inserts nothing")
                continue
            }
            guard let text = try? blocks.contentBlock(named: inner) else {
                report(.error, "content block '\(inner)' not found \(place)")
                continue
            }
            checkNestedBlocks(in: inner, source: text, depth: depth + 1, blocks: blocks, report: report)
        }
    }

    /// The candidate closest to `word` (at most one edit per four characters, at least one),
    /// if any.
    private func nearest(_ word: String, in candidates: [String]) -> String? {
        let limit = max(1, word.count / 4)
        var best: (String, Int)?
        for c in candidates.sorted() {
            let d = editDistance(word, c)
            if d <= limit, d < (best?.1 ?? Int.max) { best = (c, d) }
        }
        return best?.0
    }
}

/// The Levenshtein distance between two short names.
func editDistance(_ a: String, _ b: String) -> Int {
    let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
    if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
    var previous = Array(0...y.count)
    var current = previous
    for i in 1...x.count {
        current[0] = i
        for j in 1...y.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[y.count]
}

/// Finds `${...}` references in a field's source text.
enum AttributeScan {
    /// Profile objects that Braze reads as namespaces (`most_recently_used_device.${model}`).
    static let profileNamespaces = ["most_recently_used_device", "targeted_device", "subscribed_state", "custom_event", "purchase"]

    /// Braze namespaces of other channels (or of Braze's own computations), and what they are.
    static let otherChannelNamespaces: [String: String] = [
        "card": "a Content Card attribute", "app": "an in-app message attribute (the app asking for the message)",
        "sms": "an inbound SMS attribute", "whats_app": "an inbound WhatsApp attribute",
        "product_recommendation": "an AI item recommendation Braze computes (not in a user export)",
    ]

    /// Braze's email list attributes (links that change a subscription).
    static let emailAttributes: Set<String> = ["set_user_to_unsubscribed_url", "unsubscribe_url", "set_user_to_one_click_list_unsubscribe",
                                               "set_user_to_subscribed_url", "set_user_to_opted_in_url"]

    struct Reference {
        /// The reference as written (`${first_name}`, `custom_attribute.${x}`, `${first`).
        var text: String
        /// The name, or `nil` when the reference is malformed.
        var name: String?
        var namespace: String?
        /// UTF-8 offset of the reference (its namespace, if any) in the source.
        var offset: Int
        /// Whether it is inside `{{ }}` or `{% %}`.
        var inMarkup: Bool
    }

    static func references(in source: String) -> [Reference] {
        let bytes = Array(source.utf8)
        var out: [Reference] = []
        var i = 0
        var close: UInt8?  // the first byte of the end of the markup we are in: "}}" or "%}"
        /// Whether the two bytes at `k` are `first` and `second`.
        func at(_ k: Int, _ first: UInt8, _ second: UInt8) -> Bool {
            k + 1 < bytes.count && bytes[k] == first && bytes[k + 1] == second
        }
        let brace = UInt8(ascii: "{"), closing = UInt8(ascii: "}"), percent = UInt8(ascii: "%"), dollar = UInt8(ascii: "$")
        while i < bytes.count {
            if close == nil, at(i, brace, brace) { close = closing; i += 2; continue }
            if close == nil, at(i, brace, percent) { close = percent; i += 2; continue }
            if let c = close, at(i, c, closing) { close = nil; i += 2; continue }
            guard at(i, dollar, brace) else { i += 1; continue }
            // The namespace: identifier characters before ".${".
            var start = i
            var namespace: String?
            if i > 0, bytes[i - 1] == UInt8(ascii: ".") {
                var s = i - 1
                while s > 0, isIdentifier(bytes[s - 1]) { s -= 1 }
                if s < i - 1 {
                    namespace = String(decoding: bytes[s..<(i - 1)], as: UTF8.self)
                    start = s
                }
            }
            var j = i + 2
            while j < bytes.count, bytes[j] != UInt8(ascii: "}"), bytes[j] != UInt8(ascii: "{"), bytes[j] != UInt8(ascii: "\n") { j += 1 }
            let closed = j < bytes.count && bytes[j] == UInt8(ascii: "}")
            let rawName = String(decoding: bytes[(i + 2)..<j], as: UTF8.self)
            let end = closed ? j + 1 : j
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            let wellFormed = closed && !rawName.isEmpty && rawName.trimmingCharacters(in: .whitespaces) == rawName
            out.append(Reference(text: text, name: wellFormed ? rawName : nil, namespace: namespace, offset: start, inMarkup: close != nil))
            i = end
        }
        return out
    }

    /// Uses of the filters `names` in a source (`| lstrip`), each name and its UTF-8 offset.
    static func filterUses(of names: [String], in source: String) -> [(name: String, offset: Int)] {
        let bytes = Array(source.utf8)
        var out: [(name: String, offset: Int)] = []
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "|") else { i += 1; continue }
            var j = i + 1
            while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
            var k = j
            while k < bytes.count, isIdentifier(bytes[k]) { k += 1 }
            let word = String(decoding: bytes[j..<k], as: UTF8.self)
            if names.contains(word) { out.append((word, j)) }
            i = max(k, i + 1)
        }
        return out
    }

    /// The `{% NAME markup %}` tags in a source: each tag's UTF-8 offset and its markup (up to
    /// the first `%}`).
    static func tags(named name: String, in source: String) -> [(offset: Int, markup: String)] {
        let bytes = Array(source.utf8)
        let word = Array(name.utf8)
        var out: [(offset: Int, markup: String)] = []
        var i = 0
        func space(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        while i + 1 < bytes.count {
            guard bytes[i] == UInt8(ascii: "{"), bytes[i + 1] == UInt8(ascii: "%") else { i += 1; continue }
            let tag = i
            var j = i + 2
            if j < bytes.count, bytes[j] == UInt8(ascii: "-") { j += 1 }
            while j < bytes.count, space(bytes[j]) { j += 1 }
            if j + word.count <= bytes.count, Array(bytes[j..<(j + word.count)]) == word, j + word.count == bytes.count || space(bytes[j + word.count]) || bytes[j + word.count] == UInt8(ascii: "%") || bytes[j + word.count] == UInt8(ascii: "(") {
                var k = j + word.count
                let start = k
                while k + 1 < bytes.count, !(bytes[k] == UInt8(ascii: "%") && bytes[k + 1] == UInt8(ascii: "}")) { k += 1 }
                var end = min(k, bytes.count)
                if end > start, bytes[end - 1] == UInt8(ascii: "-") { end -= 1 }
                out.append((tag, String(decoding: bytes[start..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
                i = k
            } else {
                i = j
            }
        }
        return out
    }

    /// Offsets of `{% abort_message ... %}` tags written without parentheses (Braze's syntax
    /// is `abort_message('reason')`).
    static func abortMessagesWithoutParentheses(in source: String) -> [Int] {
        let bytes = Array(source.utf8)
        let name = Array("abort_message".utf8)
        var out: [Int] = []
        var i = 0
        while i + 1 < bytes.count {
            guard bytes[i] == UInt8(ascii: "{"), bytes[i + 1] == UInt8(ascii: "%") else { i += 1; continue }
            let tag = i
            var j = i + 2
            if j < bytes.count, bytes[j] == UInt8(ascii: "-") { j += 1 }
            while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D { j += 1 }
            if j + name.count <= bytes.count, Array(bytes[j..<(j + name.count)]) == name {
                var k = j + name.count
                while k < bytes.count, bytes[k] == 0x20 || bytes[k] == 0x09 { k += 1 }
                if k >= bytes.count || bytes[k] != UInt8(ascii: "(") { out.append(tag) }
            }
            i = j
        }
        return out
    }

    static func isIdentifier(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_")
    }
}
