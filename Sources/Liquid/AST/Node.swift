/// A compiled piece of a template that renders into the output.
///
/// Custom tags return their own nodes from ``LiquidTag/parse(_:parser:)``. Nodes are
/// immutable and shared by every render of a template, possibly on several threads at once:
/// keep per-render state in the ``RenderContext``.
public protocol LiquidNode: Sendable {
    /// Appends this node's output to `context` (through ``RenderContext/write(_:)``).
    func render(_ context: RenderContext) throws
    /// `true` when the node never produces visible output (`assign`, `capture`, comments,
    /// blocks of such nodes); blocks made only of blank nodes and whitespace drop that
    /// whitespace, as the reference does.
    var isBlank: Bool { get }
}

extension LiquidNode {
    public var isBlank: Bool { false }
}

/// A tag: the parser calls it for each `{% name ... %}` with that name.
public protocol LiquidTag: Sendable {
    /// The tag's name, `if`.
    var name: String { get }
    /// Parses the tag (and, for a block, its body through `parser`) into a node.
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode
}

/// A tag as written: its name, its markup and where it is.
public struct TagToken: Sendable {
    /// The tag name, `for`.
    public var name: String
    /// The markup after the name, `item in items limit: 2`.
    public var markup: Substring
    /// UTF-8 offset of the tag in the template source.
    public var offset: Int
    /// UTF-8 offset of the markup.
    public var markupOffset: Int
}

/// A sequence of nodes: a template, or the body of a block.
public struct Body: Sendable {
    /// The nodes in order.
    public internal(set) var nodes: [any LiquidNode]
    var offsets: [Int]

    /// An empty body.
    public init() {
        nodes = []
        offsets = []
    }

    mutating func append(_ node: any LiquidNode, at offset: Int) {
        if nodes.isEmpty {
            // Most bodies are short: one allocation each instead of growing 1, 2, 4, 8.
            nodes.reserveCapacity(8)
            offsets.reserveCapacity(8)
        }
        nodes.append(node)
        offsets.append(offset)
    }

    /// `true` when every node is blank (whitespace text included).
    public var isBlank: Bool { nodes.allSatisfy(\.isBlank) }

    /// The body without whitespace-only text, used when the enclosing block is blank.
    func removingBlankText() -> Body {
        var copy = Body()
        for (node, offset) in zip(nodes, offsets) where !(node is TextNode) {
            copy.append(node, at: offset)
        }
        return copy
    }

    /// Renders the nodes in order, stopping at `break`/`continue`, counting steps and
    /// checking the output limit.
    @inline(never)
    public func render(_ context: RenderContext) throws {
        // Indexing the array itself (not a buffer pointer, not for-in) lets the compiler call
        // each node in place instead of copying its existential first.
        var i = 0
        while i < nodes.count {
            do {
                try nodes[i].render(context)
            } catch var error as LiquidError {
                if error.offset == nil && error.location == nil { error.offset = offsets[i] }
                throw error
            } catch let reason as LiquidError.Reason {
                throw LiquidError(reason, offset: offsets[i])
            }
            if context.interrupt != nil { return }
            try context.step()
            i += 1
        }
    }
}

/// Literal text.
struct TextNode: LiquidNode {
    /// The text's UTF-8 bytes, as the output takes them.
    let bytes: [UInt8]
    let whitespaceOnly: Bool
    init(_ text: String) { self.init(bytes: Array(text.utf8)) }
    init(bytes: [UInt8]) {
        self.bytes = bytes
        // The reference's blank test is /\A\s*\z/: ASCII whitespace.
        self.whitespaceOnly = bytes.allSatisfy(isSpace)
    }
    func render(_ context: RenderContext) throws { bytes.withUnsafeBufferPointer { context.buffer.append(contentsOf: $0) } }
    var isBlank: Bool { whitespaceOnly }
}

/// `{{ expression | filters }}`.
struct OutputNode: LiquidNode {
    let expression: FilteredExpression
    func render(_ context: RenderContext) throws {
        let count = expression.filters.count
        if count > 0, let append = expression.filters[count - 1].appendToOutput {
            // The last filter writes its result straight into the output (no string of its own).
            let input = try context.evaluate(expression, filters: count - 1)
            if append(input, &context.buffer) { return }
            context.emit(try context.apply(expression.filters[count - 1], to: input))
            return
        }
        let value = try context.evaluate(expression)
        context.emit(value)
    }
}
