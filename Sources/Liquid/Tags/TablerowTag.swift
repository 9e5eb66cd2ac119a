/// The `tablerowloop` object.
final class TablerowloopDrop: LiquidDrop, @unchecked Sendable {
    let length: Int
    let cols: Int
    @exclusivity(unchecked) var index0 = 0
    init(length: Int, cols: Int) {
        self.length = length
        self.cols = cols
    }
    var col0: Int { cols > 0 ? index0 % cols : index0 }
    var row: Int { cols > 0 ? index0 / cols + 1 : 1 }

    func liquidProperty(_ key: String) -> LiquidValue? {
        switch key {
        case "length": return .int(length)
        case "index": return .int(index0 + 1)
        case "index0": return .int(index0)
        case "rindex": return .int(length - index0)
        case "rindex0": return .int(length - index0 - 1)
        case "first": return .bool(index0 == 0)
        case "last": return .bool(index0 == length - 1)
        case "col": return .int(col0 + 1)
        case "col0": return .int(col0)
        case "col_first": return .bool(col0 == 0)
        case "col_last": return .bool(col0 + 1 == cols)
        case "row": return .int(row)
        default: return nil
        }
    }
}

/// Ruby's `to_i`, as `tablerow` reads its attributes: nil is 0, a float is truncated, a
/// string is its leading integer (0 without one); anything else is `invalid integer`.
func tablerowInteger(_ value: LiquidValue) throws -> Int {
    switch value.resolved {
    case .nil: return 0
    case .int(let i): return i
    case .bigInt(let b): return b.isNegative ? Int.min : Int.max
    case .double(let d):
        guard let i = integer(exactlyTruncating: d) else { throw LiquidError.Reason.numberOutOfRange("tablerow parameter \(rubyFloatString(d))") }
        return i
    case .string(let s): return rubyStringToInt(s)
    default: throw LiquidError.Reason.argument("invalid integer")
    }
}

/// `{% tablerow item in collection cols: n limit: n offset: n %}`: an HTML table's rows and cells.
struct TablerowTag: LiquidTag {
    let name = "tablerow"

    struct Node: LiquidNode {
        let parameters: LoopParameters
        let body: Body

        func render(_ context: RenderContext) throws {
            let p = parameters
            // As the reference: no table at all for nil or false; `offset`, `limit` and `cols`
            // read with Ruby's `to_i` (nil, and a string without digits, are 0).
            let collection = try context.evaluate(p.collection)
            switch collection.resolved {
            case .nil, .bool(false): return
            default: break
            }
            let from = try p.offset.map { try tablerowInteger(try context.evaluate($0)) } ?? 0
            let limit = try p.limit.map { try tablerowInteger(try context.evaluate($0)) }
            let items = LoopItems(collection, from: from, limit: limit) ?? LoopItems(.array([]))!
            let cols = try p.cols.map { try tablerowInteger(try context.evaluate($0)) } ?? items.count
            let loop = TablerowloopDrop(length: items.count, cols: cols)
            context.write("<tr class=\"row1\">\n")
            context.pushLocal("tablerowloop", .drop(loop))
            context.pushLocal(p.variable, .nil)
            let slot = context.locals.count - 1
            defer { context.popLocal(); context.popLocal() }
            for i in 0..<items.count {
                loop.index0 = i
                context.locals[slot].value = items[i]
                context.write("<td class=\"col\(loop.col0 + 1)\">")
                try body.render(context)
                context.write("</td>")
                if let interrupt = context.interrupt {
                    context.interrupt = nil
                    if interrupt == .breakLoop { break }
                }
                if loop.col0 + 1 == cols && i != items.count - 1 {
                    context.write("</tr>\n<tr class=\"row\(loop.row + 1)\">")
                }
                try context.step()
            }
            context.write("</tr>\n")
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        let p = try parser.parseMarkup(tag.markup, offset: tag.markupOffset, laxInStrict: true) { try LoopParameters.parse(&$0, tablerow: true) } lax: { try $0.loopParameters(tablerow: true) }
        let (body, _) = try parser.parseBlock("tablerow", offset: tag.offset, until: ["endtablerow"])
        return Node(parameters: p, body: body)
    }
}
