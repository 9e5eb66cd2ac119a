import Foundation
import Liquid

/// Where `{% catalog_items %}` finds catalogs.
public protocol CatalogSource: Sendable {
    /// The catalog `name`, or `nil` when there is none.
    /// - Throws: ``CatalogError`` when it exists but cannot be read.
    func catalog(named name: String) throws -> Catalog?
}

/// Catalogs in a folder, as Braze's catalog export writes them: `<folder>/<name>.csv` or
/// `<folder>/<name>.json` (`Catalogs/` beside `Templates/`). Each is read once, when first
/// used, and shared by every render and thread.
public final class DirectoryCatalogs: CatalogSource, @unchecked Sendable {
    /// The folder.
    public let directory: URL
    private let lock = NSLock()
    private var loaded: [String: Catalog] = [:]

    /// Catalogs in `directory`.
    public init(directory: URL) { self.directory = directory }

    /// The file the catalog `name` is read from, if it exists.
    public func file(of name: String) -> URL? {
        guard Self.isValidName(name) else { return nil }
        for ext in ["csv", "json"] {
            let url = directory.appendingPathComponent("\(name).\(ext)")
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        return nil
    }

    public func catalog(named name: String) throws -> Catalog? {
        lock.lock()
        if let c = loaded[name] { lock.unlock(); return c }
        lock.unlock()
        guard let url = file(of: name) else { return nil }
        let display = directory.lastPathComponent + "/" + url.lastPathComponent
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        if let size = (attributes?[.size] as? NSNumber)?.intValue, size > Catalog.maxFileBytes {
            throw CatalogError(catalog: name, location: nil, message: "the file is \(size) bytes, over the \(Catalog.maxFileBytes)-byte limit for a catalog", file: display)
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CatalogError(catalog: name, location: nil, message: "cannot read the file", file: display)
        }
        let text: String
        do { text = try SourceText.decode(data, name: display) } catch let e as LiquidError {
            throw CatalogError(catalog: name, location: e.location, message: e.message, file: display)
        }
        let catalog = url.pathExtension == "csv" ? try Catalog(csv: text, name: name, file: display) : try Catalog(json: text, name: name, file: display)
        lock.lock()
        loaded[name] = catalog
        lock.unlock()
        return catalog
    }

    /// Braze's catalog names: letters, digits, hyphens and underscores, at most 250 characters.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 250 && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
    }
}

/// Catalogs held in memory.
public struct InMemoryCatalogs: CatalogSource {
    /// Catalogs by name.
    public var catalogs: [String: Catalog]
    /// Catalogs from a list.
    public init(_ catalogs: [Catalog]) { self.catalogs = Dictionary(catalogs.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }) }
    public func catalog(named name: String) throws -> Catalog? { catalogs[name] }
}
