/// The `forloop` object of a `for` loop, updated in place as the loop advances.
final class ForloopDrop: LiquidDrop, @unchecked Sendable {
    private(set) var name: String
    private(set) var length: Int
    @exclusivity(unchecked) var index0 = 0
    private(set) var parent: LiquidValue

    /// Makes a spare drop (see `RenderContext.spareForloop`) the `forloop` of a new loop.
    func reuse(name: String, length: Int, parent: LiquidValue) {
        self.name = name
        self.length = length
        self.parent = parent
        index0 = 0
    }

    init(name: String, length: Int, parent: LiquidValue) {
        self.name = name
        self.length = length
        self.parent = parent
    }

    static let key = PropertyKey("forloop")
    private static let index = PropertyKey("index"), last = PropertyKey("last"), first = PropertyKey("first")

    func liquidProperty(_ key: PropertyKey) -> LiquidValue? {
        // The common ones by fingerprint, the rest by name.
        if key.fingerprint == Self.index.fingerprint && key == Self.index { return .int(index0 + 1) }
        if key.fingerprint == Self.last.fingerprint && key == Self.last { return .bool(index0 == length - 1) }
        if key.fingerprint == Self.first.fingerprint && key == Self.first { return .bool(index0 == 0) }
        return liquidProperty(key.name)
    }

    func liquidProperty(_ key: String) -> LiquidValue? {
        switch key {
        case "index": return .int(index0 + 1)
        case "index0": return .int(index0)
        case "rindex": return .int(length - index0)
        case "rindex0": return .int(length - index0 - 1)
        case "first": return .bool(index0 == 0)
        case "last": return .bool(index0 == length - 1)
        case "length": return .int(length)
        case "name": return .string(name)
        case "parentloop": return parent
        default: return nil
        }
    }

    var liquidSelf: LiquidValue {
        ["name": .string(name), "length": .int(length), "index": .int(index0 + 1), "index0": .int(index0),
         "rindex": .int(length - index0), "rindex0": .int(length - index0 - 1),
         "first": .bool(index0 == 0), "last": .bool(index0 == length - 1)]
    }
}

/// The items a `for`, `tablerow` or `render ... for` iterates, after `offset` and `limit`:
/// array elements, a range's integers (never materialized, so `(1..1000000000)` costs
/// nothing until iterated), an object's `[key, value]` pairs, a non-empty string as one item.
struct LoopItems {
    private enum Storage {
        case array(ArraySlice<LiquidValue>)
        case range(Int, Int)
    }
    private let storage: Storage
    var reversed = false
    let count: Int

    init?(_ value: LiquidValue, from: Int = 0, limit: Int? = nil) {
        let start = max(0, from)
        func window(_ total: Int) -> Range<Int> {
            var end = total
            if let limit { end = min(end, from.addingReportingOverflow(limit).overflow ? Int.max : from + limit) }
            return start < end ? start..<end : 0..<0
        }
        switch value.resolved {
        case .array(let a):
            let w = window(a.count)
            storage = .array(a[w])
            count = w.count
        case .range(let lo, let hi):
            let w = window(rangeSize(lo, hi))
            storage = .range(lo &+ w.lowerBound, lo &+ w.upperBound &- 1)
            count = w.count
        case .object(let o):
            let pairs = o.map { LiquidValue.array([.string($0.key), $0.value]) }
            let w = window(pairs.count)
            storage = .array(pairs[w])
            count = w.count
        case .string(let s):
            // The reference iterates a string as one item, whatever `offset` and `limit` say.
            storage = .array(s.isEmpty ? [] : [.string(s)])
            count = s.isEmpty ? 0 : 1
        default:
            return nil
        }
    }

    subscript(i: Int) -> LiquidValue {
        let k = reversed ? count - 1 - i : i
        switch storage {
        case .array(let a): return a[a.startIndex + k]
        case .range(let lo, _): return .int(lo &+ k)
        }
    }
}

/// Integer value of a loop parameter (`limit`, `offset`, `cols`).
func loopInteger(_ value: LiquidValue) throws -> Int? {
    switch value.resolved {
    case .nil: return nil
    case .int(let i): return i
    case .bigInt(let b): return b.isNegative ? Int.min : Int.max  // no loop reaches that far
    case .double(let d):
        guard let i = integer(exactlyTruncating: d) else { throw LiquidError.Reason.numberOutOfRange("loop parameter \(rubyFloatString(d))") }
        return i
    case .string(let s):
        guard let i = Int(s.trimmingCharacters()) else { throw LiquidError.Reason.argument("invalid integer") }
        return i
    default: throw LiquidError.Reason.argument("invalid integer")
    }
}

/// Loop parameters shared by `for` and `tablerow`.
struct LoopParameters: Sendable {
    var variable = "" { didSet { variableKey = PropertyKey(variable) } }
    private(set) var variableKey = PropertyKey("")
    var collection: LiquidExpression = .literal(.nil)
    var collectionText = ""
    var limit: LiquidExpression?
    var offset: LiquidExpression?
    var offsetContinue = false
    var cols: LiquidExpression?
    var reversed = false

    /// `tablerow` also takes `cols`, and `range` (which the reference reads and ignores).
    static func parse(_ stream: inout MarkupStream, tablerow: Bool) throws -> LoopParameters {
        var p = LoopParameters()
        p.variable = try stream.expectIdentifier("a loop variable name")
        guard stream.accept(word: "in") else { throw stream.unexpected("'in'") }
        let start = stream.offset
        p.collection = try stream.expression()
        p.collectionText = stream.sourceText(from: start, to: stream.offset)
        if !tablerow && !stream.lax {
            // The reference's strict `for`: `reversed` right after the collection, then
            // `limit:` and `offset:`, each after an optional comma.
            p.reversed = stream.accept(word: "reversed")
            while !stream.isAtEnd {
                _ = stream.acceptComma()
                guard stream.atKeywordArgument, let key = stream.identifier(), key == "limit" || key == "offset" else {
                    throw LiquidError.Reason.syntax("Invalid attribute in for loop. Valid attributes are limit and offset").at(stream.offset)
                }
                _ = stream.acceptColon()
                if key == "limit" {
                    p.limit = try stream.expression()
                } else if stream.accept(word: "continue") {
                    (p.offsetContinue, p.offset) = (true, nil)
                } else {
                    (p.offsetContinue, p.offset) = (false, try stream.expression())
                }
            }
            return p
        }
        while !stream.isAtEnd {
            if stream.acceptComma() { continue }
            if stream.accept(word: "reversed") { p.reversed = true; continue }
            guard stream.atKeywordArgument, let key = stream.identifier() else {
                if stream.lax { stream.advance(); continue }
                throw stream.unexpected("'limit', 'offset', 'reversed' or end of markup")
            }
            _ = stream.acceptColon()
            switch key {
            case "limit": p.limit = try stream.expression()
            case "offset":
                // The last `offset:` counts, `continue` or not.
                if stream.accept(word: "continue") {
                    (p.offsetContinue, p.offset) = (true, nil)
                } else {
                    (p.offsetContinue, p.offset) = (false, try stream.expression())
                }
            case "cols" where tablerow: p.cols = try stream.expression()
            case "range" where tablerow: _ = try stream.expression()
            default:
                if stream.lax { _ = try stream.expression(); continue }
                throw LiquidError.Reason.syntax("unknown loop parameter '\(key)'").at(stream.offset)
            }
        }
        return p
    }
}

/// `{% for item in collection limit: n offset: n|continue reversed %}...{% else %}...{% endfor %}`.
struct ForTag: LiquidTag {
    let name = "for"

    /// A class: a node this large would sit in a heap box inside its `any LiquidNode`, copied
    /// field by field whenever the parser moved it.
    final class Node: LiquidNode {
        let parameters: LoopParameters
        let loopName: String
        let body: Body
        let elseBody: Body?
        let isBlank: Bool
        var variableKey: PropertyKey { parameters.variableKey }

        init(parameters: LoopParameters, loopName: String, body: Body, elseBody: Body?, isBlank: Bool) {
            (self.parameters, self.loopName, self.body, self.elseBody, self.isBlank) = (parameters, loopName, body, elseBody, isBlank)
        }

        func render(_ context: RenderContext) throws {
            let collection = try context.evaluate(parameters.collection)
            let from: Int
            if parameters.offsetContinue {
                from = context.forOffset(loopName) ?? 0
            } else if let offset = parameters.offset {
                from = try loopInteger(try context.evaluate(offset)) ?? 0
            } else {
                from = 0
            }
            let limit = try parameters.limit.flatMap { try loopInteger(try context.evaluate($0)) }
            var items = LoopItems(collection, from: from, limit: limit) ?? LoopItems(.array([]))!
            items.reversed = parameters.reversed
            context.setForOffset(loopName, from.addingReportingOverflow(items.count).overflow ? Int.max : from + items.count)
            guard items.count > 0 else {
                try elseBody?.render(context)
                return
            }
            let parent = context.forStack.last.map { LiquidValue.drop($0) } ?? .nil
            var forloop: ForloopDrop
            if let spare = context.spareForloop {
                context.spareForloop = nil
                spare.reuse(name: loopName, length: items.count, parent: parent)
                forloop = spare
            } else {
                forloop = ForloopDrop(name: loopName, length: items.count, parent: parent)
            }
            context.forStack.append(forloop)
            context.pushLocal(ForloopDrop.key, .drop(forloop))
            context.pushLocal(variableKey, .nil)
            let slot = context.locals.count - 1
            defer {
                context.popLocal()
                context.popLocal()
                context.forStack.removeLast()
                // Kept for the next loop unless something still holds it (`assign x = forloop`).
                if isKnownUniquelyReferenced(&forloop) {
                    forloop.reuse(name: "", length: 0, parent: .nil)
                    context.spareForloop = forloop
                }
            }
            for i in 0..<items.count {
                forloop.index0 = i
                context.locals[slot].value = items[i]
                try body.render(context)
                // As the reference, a `forloop` kept past its loop has counted every
                // iteration that ran (`index` one past the last).
                forloop.index0 = i + 1
                if let interrupt = context.interrupt {
                    context.interrupt = nil
                    if interrupt == .breakLoop { break }
                }
                try context.step()
            }
        }
    }

    static let terminators = ["else", "endfor"]
    static let endTerminator = ["endfor"]

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        let p = try parser.parseMarkup(tag.markup, offset: tag.markupOffset) { try LoopParameters.parse(&$0, tablerow: false) } lax: { try $0.loopParameters(tablerow: false) }
        var (body, end) = try parser.parseBlock("for", offset: tag.offset, until: Self.terminators)
        var elseBody: Body?
        if end.name == "else" {
            let (b, _) = try parser.parseBlock("for", offset: tag.offset, until: Self.endTerminator)
            elseBody = b
        }
        let blank = body.isBlank && (elseBody?.isBlank ?? true)
        if blank {
            body = body.removingBlankText()
            elseBody = elseBody?.removingBlankText()
        }
        return Node(parameters: p, loopName: "\(p.variable)-\(p.collectionText)", body: body, elseBody: elseBody, isBlank: blank)
    }
}

/// `{% break %}`.
struct BreakTag: LiquidTag {
    let name = "break"
    struct Node: LiquidNode {
        func render(_ context: RenderContext) throws { context.interrupt = .breakLoop }
    }
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode { Node() }
}

/// `{% continue %}`.
struct ContinueTag: LiquidTag {
    let name = "continue"
    struct Node: LiquidNode {
        func render(_ context: RenderContext) throws { context.interrupt = .continueLoop }
    }
    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode { Node() }
}
