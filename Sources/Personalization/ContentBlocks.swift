import Foundation
import Liquid

/// Where `{{content_blocks.${name}}}` finds its blocks.
public protocol ContentBlockSource: Sendable {
    /// The Liquid source of the block `name`, or `nil` when there is none.
    func contentBlock(named name: String) throws -> String?
}

/// Content blocks in a folder: `<folder>/<name>.liquid` (`Templates/content_blocks/`).
public struct DirectoryContentBlocks: ContentBlockSource {
    /// The folder.
    public let directory: URL
    /// Blocks in `directory`.
    public init(directory: URL) { self.directory = directory }
    public func contentBlock(named name: String) throws -> String? {
        guard !name.contains("/"), !name.hasPrefix(".") else { return nil }
        let url = directory.appendingPathComponent(name + ".liquid")
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        // Invalid UTF-8 is an error at its line and column in the block (not U+FFFD in payloads).
        return try SourceText.decode(data, name: "content_blocks/\(name)")
    }
}

/// Content blocks held in memory.
public struct InMemoryContentBlocks: ContentBlockSource {
    /// Blocks by name.
    public var blocks: [String: String]
    /// Blocks from a dictionary.
    public init(_ blocks: [String: String]) { self.blocks = blocks }
    public func contentBlock(named name: String) throws -> String? { blocks[name] }
}

/// Parses each content block once and shares it between renders and threads.
final class ContentBlockStore: @unchecked Sendable {
    let source: any ContentBlockSource
    private let lock = NSLock()
    private var parsed: [String: LiquidTemplate] = [:]

    init(source: any ContentBlockSource) { self.source = source }

    func template(named name: String, environment: LiquidEnvironment) throws -> LiquidTemplate {
        lock.lock()
        if let t = parsed[name] { lock.unlock(); return t }
        lock.unlock()
        guard let text = try source.contentBlock(named: name) else {
            throw LiquidError.Reason.custom("content block '\(name)' not found")
        }
        let template = try environment.parse(text, name: "content_blocks/\(name)")
        lock.lock()
        parsed[name] = template
        lock.unlock()
        return template
    }
}

/// The most content blocks nested in one another (a block including itself ends here).
public let maxContentBlockDepth = 10

/// `{{content_blocks.${name}}}`: the block's Liquid rendered in the including scope (its
/// `assign`s stay visible after it), as text.
struct ContentBlockExpression: LiquidCustomExpression {
    let name: String
    let store: ContentBlockStore?

    func evaluate(_ context: RenderContext) throws -> LiquidValue {
        guard let store else { throw LiquidError.Reason.custom("content block '\(name)' not found: no content blocks are configured") }
        let depth = (context.registers["braze.contentBlockDepth"] as? Int) ?? 0
        guard depth < maxContentBlockDepth else {
            throw LiquidError.Reason.custom("content blocks nested more than \(maxContentBlockDepth) deep (at '\(name)')")
        }
        let template = try store.template(named: name, environment: context.environment)
        context.registers["braze.contentBlockDepth"] = depth + 1
        defer { context.registers["braze.contentBlockDepth"] = depth }
        return .string(try context.capture { try context.renderPartial(template, name: "content_blocks/\(name)") })
    }
}
