/// `{% increment x %}` outputs the counter then adds one; `{% decrement x %}` subtracts one
/// then outputs. Counters live apart from `assign`ed variables, as in the reference: an
/// `assign` of the same name hides the counter from `{{ x }}` but not from the tag.
struct IncrementTag: LiquidTag {
    let name: String

    struct Node: LiquidNode {
        let variable: String
        let delta: Int
        func render(_ context: RenderContext) throws {
            var value: Int
            switch context.counters[variable] ?? {
                if case .object(let o) = context.data { return o[variable] }
                return nil
            }() {
            case .int(let i)?: value = i
            case .double(let d)?:
                // A counter past 64 bits (Ruby's bignum) goes on as a float, as math filters do.
                let next = delta < 0 ? d - 1 : d
                context.write(rubyFloatString(next))
                context.counters[variable] = .double(delta > 0 ? next + 1 : next)
                return
            default: value = 0
            }
            if delta < 0 {
                guard value > Int.min else {
                    context.write(rubyFloatString(Double(value) - 1))
                    context.counters[variable] = .double(Double(value) - 1)
                    return
                }
                value -= 1
            }
            context.write(String(value))
            if delta > 0 {
                guard value < Int.max else {
                    context.counters[variable] = .double(Double(value) + 1)
                    return
                }
                value += 1
            }
            context.counters[variable] = .int(value)
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
