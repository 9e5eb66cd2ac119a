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
        guard text.utf8.count <= maxContentBlockBytes else {
            throw LiquidError.Reason.custom("content block '\(name)' is \(text.utf8.count) bytes, over Braze's 50 KB limit for a content block (\(maxContentBlockBytes) bytes)")
        }
        let template = try environment.parse(text, name: "content_blocks/\(name)")
        lock.lock()
        parsed[name] = template
        lock.unlock()
        return template
    }
}

/// How deep content blocks nest: Braze expands a block in the message and a block inside
/// that one ("nested, but only once"); a block nested deeper is removed from the message,
/// content and reference both (a warning says where).
public let maxContentBlockDepth = 2

/// The largest content block Braze saves: 50 KB.
public let maxContentBlockBytes = 50 * 1024

/// `{{content_blocks.${name}}}`: the block's Liquid rendered in the including scope (its
/// `assign`s stay visible after it), as text.
struct ContentBlockExpression: LiquidCustomExpression {
    let name: String
    let store: ContentBlockStore?
    /// Where the reference is in its template, for the warning of a block nested too deep.
    var offset: Int = 0

    func evaluate(_ context: RenderContext) throws -> LiquidValue {
        guard let store else { throw LiquidError.Reason.custom("content block '\(name)' not found: no content blocks are configured") }
        let depth = (context.registers["braze.contentBlockDepth"] as? Int) ?? 0
        guard depth < maxContentBlockDepth else {
            context.warn("content block '\(name)' is nested \(depth + 1) deep; Braze expands content blocks \(maxContentBlockDepth) deep (a block in a block) and removes deeper ones, so nothing is inserted", at: offset)
            return .string("")
        }
        let template = try store.template(named: name, environment: context.environment)
        context.registers["braze.contentBlockDepth"] = depth + 1
        defer { context.registers["braze.contentBlockDepth"] = depth }
        return .string(try context.capture { try context.renderPartial(template, name: "content_blocks/\(name)") })
    }
}
