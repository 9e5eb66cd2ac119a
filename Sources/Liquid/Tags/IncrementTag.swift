/// `{% increment x %}` outputs the counter then adds one; `{% decrement x %}` subtracts one
/// then outputs. Counters live apart from `assign`ed variables, as in the reference: an
/// `assign` of the same name hides the counter from `{{ x }}` but not from the tag.
struct IncrementTag: LiquidTag {
    let name: String

    struct Node: LiquidNode {
        let variable: String
        let delta: Int
        func render(_ context: RenderContext) throws {
            let current = context.counters[variable] ?? {
                if case .object(let o) = context.data { return o[variable] }
                return nil
            }()
            // Past 64 bits the counter goes on exactly, as Ruby's bignums do.
            var value: LiquidNumber
            switch current {
            case .int(let i)?: value = .int(i)
            case .bigInt(let b)?: value = .big(b)
            case .double(let d)?: value = .float(d)
            default: value = .int(0)
            }
            if delta < 0 { value = try value.subtract(.int(1)) }
            try context.emit(value.value)
            if delta > 0 { value = try value.add(.int(1)) }
            context.counters[variable] = value.value
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        // The reference takes the whole markup as the name (even none); strict2 wants a name.
        let variable = tag.markup.trimmingCharacters()
        guard parser.environment.errorMode != .strict2 || (validTargetName(Substring(variable)) && !isDigit(variable.utf8.first ?? 0)) else {
            throw LiquidError.Reason.syntax("invalid variable name '\(variable)' in \(name)").at(tag.markupOffset)
        }
        return Node(variable: variable, delta: name == "increment" ? 1 : -1)
    }
}
