import Foundation
import Liquid

/// A Braze catalog: items of non-user data (products, courses, events) by their `id`, which
/// `{% catalog_items NAME ID... %}` reads into `items`.
public struct Catalog: Sendable {
    /// The catalog's name (`games`).
    public let name: String
    /// The fields (columns), `id` first, in file order.
    public let fields: [String]
    /// Items by id; each an object of its fields (`id` included).
    public let items: [String: LiquidValue]
    /// The ids in file order.
    public let ids: [String]

    /// A catalog of `items` (objects with a string or integer `id`).
    /// - Throws: ``CatalogError`` for an item without an id or an id given twice.
    public init(name: String, items: [LiquidValue]) throws {
        var byID: [String: LiquidValue] = [:], ids: [String] = [], fields: [String] = ["id"]
        for (n, item) in items.enumerated() {
            guard case .object(var o) = item else { throw CatalogError(catalog: name, location: nil, message: "item \(n + 1) is not an object") }
            let id: String
            switch o["id"] {
            case .string(let s)?: id = s
            case .int(let i)?: id = String(i)
            default: throw CatalogError(catalog: name, location: nil, message: "item \(n + 1) has no string \"id\"")
            }
            guard byID[id] == nil else { throw CatalogError(catalog: name, location: nil, message: "the id '\(id)' is given twice") }
            o["id"] = .string(id)
            for key in o.keys where !fields.contains(key) { fields.append(key) }
            byID[id] = .object(o)
            ids.append(id)
        }
        self.name = name
        self.items = byID
        self.ids = ids
        self.fields = fields
    }

    private init(name: String, fields: [String], items: [String: LiquidValue], ids: [String]) {
        self.name = name
        self.fields = fields
        self.items = items
        self.ids = ids
    }

    /// The largest catalog file read (64 MiB): a bigger one is an error, not memory a send
    /// process cannot spare.
    public static let maxFileBytes = 64 << 20

    /// Braze's longest cell (5,000 characters).
    public static let maxCellCharacters = 5_000

    /// A catalog from Braze's CSV: a header row whose first column is `id`, then one item per
    /// row (RFC 4180: quoted fields with `""`, commas and line breaks inside quotes, `\r\n` or
    /// `\n`). Column types are chosen per column as Braze's upload asks for them: a column of
    /// integers is integers, of numbers floats, of `true`/`false` booleans, anything else
    /// strings; an empty cell is nil in a typed column and "" in a string one; `id` is a string.
    /// - Throws: ``CatalogError`` at `file`'s line and column.
    public init(csv text: String, name: String, file: String) throws {
        var rows: [(line: Int, cells: [(text: String, line: Int, column: Int)])] = []
        try CSVReader.read(text) { line, cells in rows.append((line, cells)) }
            onError: { line, column, message in throw CatalogError(catalog: name, location: SourceLocation(line: line, column: column), message: message, file: file) }
        func fail(_ line: Int, _ column: Int, _ message: String) -> CatalogError {
            CatalogError(catalog: name, location: SourceLocation(line: line, column: column), message: message, file: file)
        }
        guard let header = rows.first else { throw CatalogError(catalog: name, location: nil, message: "the file is empty (a catalog starts with a header row: id,...)", file: file) }
        let fields = header.cells.map { $0.text.trimmingCharacters(in: .whitespaces) }
        guard fields.first == "id" else { throw fail(header.line, 1, "the first column of a catalog is 'id', got '\(fields.first ?? "")'") }
        var seen = Set<String>()
        for (i, f) in fields.enumerated() {
            guard !f.isEmpty else { throw fail(header.cells[i].line, header.cells[i].column, "column \(i + 1) has no name") }
            guard seen.insert(f).inserted else { throw fail(header.cells[i].line, header.cells[i].column, "the column '\(f)' is given twice") }
        }
        let body = rows.dropFirst().filter { !($0.cells.count == 1 && $0.cells[0].text.isEmpty) }
        for row in body where row.cells.count != fields.count {
            throw fail(row.line, 1, "this row has \(row.cells.count) cells, the header \(fields.count)")
        }
        // Types per column, from its non-empty cells.
        enum Kind { case int, double, bool, string }
        var kinds: [Kind] = Array(repeating: .int, count: fields.count)
        kinds[0] = .string
        for c in 1..<max(1, fields.count) {
            var kind: Kind?
            for row in body {
                let t = row.cells[c].text
                if t.isEmpty { continue }
                let k: Kind = Int(t) != nil ? .int : (Double(t) != nil && Self.isDecimal(t)) ? .double : Self.isBool(t) ? .bool : .string
                switch (kind, k) {
                case (nil, _): kind = k
                case (.int?, .double), (.double?, .int): kind = .double
                case (let a?, let b) where a == b: break
                default: kind = .string
                }
                if kind == .string { break }
            }
            kinds[c] = kind ?? .string
        }
        var items: [String: LiquidValue] = [:], ids: [String] = []
        for row in body {
            var o = LiquidObject()
            for (c, cell) in row.cells.enumerated() {
                guard cell.text.count <= Self.maxCellCharacters else {
                    throw fail(cell.line, cell.column, "a cell of \(cell.text.count) characters; Braze's catalogs hold at most \(Self.maxCellCharacters)")
                }
                let value: LiquidValue
                if cell.text.isEmpty && kinds[c] != .string {
                    value = .nil
                } else {
                    switch kinds[c] {
                    case .int: value = .int(Int(cell.text)!)
                    case .double: value = .double(Double(cell.text)!)
                    case .bool: value = .bool(cell.text.lowercased() == "true")
                    case .string: value = .string(cell.text)
                    }
                }
                o[fields[c]] = value
            }
            let id = row.cells[0].text
            guard !id.isEmpty else { throw fail(row.line, 1, "an item without an id") }
            guard items[id] == nil else { throw fail(row.line, 1, "the id '\(id)' is given twice") }
            items[id] = .object(o)
            ids.append(id)
        }
        self.init(name: name, fields: fields, items: items, ids: ids)
    }

    /// A catalog from JSON: an array of item objects, Braze's `{"items": [...]}`, or one item
    /// object per line (JSON lines). Each item has an `id` (a string, or an integer read as
    /// one); values keep their JSON types.
    /// - Throws: ``CatalogError`` at `file`'s line and column.
    public init(json text: String, name: String, file: String) throws {
        var items: [LiquidValue] = []
        do {
            var parser = JSONValueParser(text)
            let value = try parser.parse()
            switch value {
            case .array(let a): items = a
            case .object(let o) where o["items"]?.arrayValue != nil: items = o["items"]!.arrayValue!
            case .object: items = [value]
            default: throw CatalogError(catalog: name, location: SourceLocation(line: 1, column: 1), message: "a JSON catalog is an array of items, {\"items\": [...]}, or one item per line", file: file)
            }
        } catch let e as JSONValueParser.SyntaxError {
            // More than one value: JSON lines, one item each.
            guard e.message.contains("after the JSON value") else {
                throw CatalogError(catalog: name, location: SourceLocation(line: e.line, column: e.column), message: "invalid JSON: \(e.message)", file: file)
            }
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                do { items.append(try JSONValueParser.parse(String(line))) } catch let e as JSONValueParser.SyntaxError {
                    throw CatalogError(catalog: name, location: SourceLocation(line: n + 1, column: e.column), message: "invalid JSON: \(e.message)", file: file)
                }
            }
        }
        do { try self.init(name: name, items: items) } catch var error as CatalogError {
            error.file = file
            throw error
        }
    }

    /// `true` for decimal numbers as written in a CSV (`7.49`, `-3`, `1e3`), not `nan` or `inf`.
    private static func isDecimal(_ t: String) -> Bool { t.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) } }
    private static func isBool(_ t: String) -> Bool { ["true", "false"].contains(t.lowercased()) }
}

/// A catalog that cannot be read, at its file's line and column.
public struct CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The catalog's name.
    public var catalog: String
    /// Where, in its file, when known.
    public var location: SourceLocation?
    /// What is wrong.
    public var message: String
    /// The file (`Catalogs/games.csv`), when the catalog came from one.
    public var file: String?

    /// An error of `catalog`.
    public init(catalog: String, location: SourceLocation?, message: String, file: String? = nil) {
        self.catalog = catalog
        self.location = location
        self.message = message
        self.file = file
    }

    public var description: String {
        let place = (file ?? "catalog '\(catalog)'") + (location.map { ":\($0.line):\($0.column)" } ?? "")
        return "\(place): \(message)"
    }
}

/// Reads RFC 4180 CSV.
enum CSVReader {
    /// Calls `row` with each record's line and cells (text, line and column of each cell),
    /// `onError` for an unclosed quote or text after a closing quote.
    static func read(_ text: String, row: (Int, [(text: String, line: Int, column: Int)]) throws -> Void,
                     onError: (Int, Int, String) throws -> Never) throws {
        let scalars = Array(text.unicodeScalars)
        var i = 0, line = 1, column = 1
        while i < scalars.count {
            let rowLine = line
            var cells: [(text: String, line: Int, column: Int)] = []
            var endOfRow = false
            while !endOfRow {
                let cellLine = line, cellColumn = column
                var cell = String.UnicodeScalarView()
                if i < scalars.count && scalars[i] == "\"" {
                    i += 1; column += 1
                    var closed = false
                    while i < scalars.count {
                        let s = scalars[i]
                        if s == "\"" {
                            if i + 1 < scalars.count && scalars[i + 1] == "\"" { cell.append("\""); i += 2; column += 2; continue }
                            i += 1; column += 1; closed = true; break
                        }
                        if s == "\n" { line += 1; column = 1 } else { column += 1 }
                        cell.append(s)
                        i += 1
                    }
                    if !closed { try onError(cellLine, cellColumn, "a quoted cell is not closed") }
                    if i < scalars.count && scalars[i] != "," && scalars[i] != "\n" && scalars[i] != "\r" {
                        try onError(line, column, "text after a closing quote (write \"\" for a quote inside a quoted cell)")
                    }
                } else {
                    while i < scalars.count && scalars[i] != "," && scalars[i] != "\n" && scalars[i] != "\r" {
                        cell.append(scalars[i]); i += 1; column += 1
                    }
                }
                cells.append((String(cell), cellLine, cellColumn))
                if i < scalars.count && scalars[i] == "," {
                    i += 1; column += 1
                } else {
                    if i < scalars.count && scalars[i] == "\r" { i += 1 }
                    if i < scalars.count && scalars[i] == "\n" { i += 1 }
                    line += 1; column = 1
                    endOfRow = true
                }
            }
            try row(rowLine, cells)
        }
    }
}
