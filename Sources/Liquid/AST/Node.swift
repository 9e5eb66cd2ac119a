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
    /// Each node's source offset, for error locations.
    var offsets = NodeOffsets()

    /// An empty body.
    public init() {
        nodes = []
    }

    mutating func append(_ node: any LiquidNode, at offset: Int) {
        if nodes.isEmpty {
            // Most bodies are short: one allocation each instead of growing 1, 2, 4, 8.
            nodes.reserveCapacity(8)
        }
        nodes.append(node)
        offsets.append(offset)
    }

    /// `true` when every node is blank (whitespace text included).
    public var isBlank: Bool { nodes.allSatisfy(\.isBlank) }

    /// The body without whitespace-only text, used when the enclosing block is blank.
    func removingBlankText() -> Body {
        var copy = Body()
        for (i, node) in nodes.enumerated() where !(node is TextNode) {
            copy.append(node, at: offsets[i])
        }
        return copy
    }

    /// Renders the nodes in order, stopping at `break`/`continue`, counting steps and
    /// checking the output limit.
    @inline(never)
    public func render(_ context: RenderContext) throws {
        // Blocks nest through partials and content blocks too: the depth is counted here, at
        // render time, so that no chain of them can exhaust the stack.
        context.depth &+= 1
        defer { context.depth &-= 1 }
        if context.depth > context.limits.renderDepth || StackGuard.isExhausted(limit: context.stackLimit) {
            throw LiquidError.Reason.limitExceeded(.renderDepth(context.limits.renderDepth))
        }
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

/// A body's node offsets: the first few inline (most bodies are short, and this saves an
/// allocation per body), all of them in an array past that.
struct NodeOffsets: Sendable {
    private static let inlineCapacity = 6
    private var inline: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0, 0)
    private var inlineCount = 0
    /// Every offset, once there are more than fit inline (or one does not fit in 32 bits).
    private var all: [Int] = []

    mutating func append(_ offset: Int) {
        if all.isEmpty && inlineCount < Self.inlineCapacity, let small = UInt32(exactly: offset) {
            withUnsafeMutableBytes(of: &inline) { $0.storeBytes(of: small, toByteOffset: inlineCount * 4, as: UInt32.self) }
            inlineCount += 1
            return
        }
        if all.isEmpty {
            var moved: [Int] = []
            moved.reserveCapacity(inlineCount * 2 + 2)
            for i in 0..<inlineCount { moved.append(inlineOffset(i)) }
            all = moved
        }
        all.append(offset)
    }

    subscript(index: Int) -> Int {
        if !all.isEmpty { return all[index] }
        precondition(index >= 0 && index < inlineCount, "node offset index out of range")
        return inlineOffset(index)
    }

    private func inlineOffset(_ index: Int) -> Int {
        withUnsafeBytes(of: inline) { Int($0.load(fromByteOffset: index * 4, as: UInt32.self)) }
    }
}

/// Literal text.
struct TextNode: LiquidNode {
    /// The text. A `String` (16 bytes) keeps the node inline in its existential, and a short
    /// text (up to 15 UTF-8 bytes, most literal text in messages) needs no allocation at all.
    let text: String
    let whitespaceOnly: Bool
    init(_ text: String) {
        self.text = text
        // The reference's blank test is /\A\s*\z/: ASCII whitespace.
        self.whitespaceOnly = text.utf8.allSatisfy(isSpace)
    }
    func render(_ context: RenderContext) throws { appendUTF8(text, to: &context.buffer) }
    var isBlank: Bool { whitespaceOnly }
}

/// `{{ expression }}` without filters.
struct PlainOutputNode: LiquidNode {
    let expression: LiquidExpression
    func render(_ context: RenderContext) throws {
        try context.emit(try context.evaluate(expression))
    }
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
            try context.emit(try context.apply(expression.filters[count - 1], to: input))
            return
        }
        let value = try context.evaluate(expression)
        try context.emit(value)
    }
}
