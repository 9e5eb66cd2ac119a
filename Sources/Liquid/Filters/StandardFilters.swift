/// The standard filters of Shopify Liquid 5.
enum StandardFilters {
    static var all: [LiquidFilter] {
        StringFilters.all + ArrayFilters.all + MathFilters.all + DateFilter.all + [defaultFilter]
    }

    /// `default: fallback, allow_false: true`: the fallback when the input is nil, false or empty.
    static let defaultFilter = LiquidFilter("default", arguments: 0...1, keywords: ["allow_false"]) { input, args, _ in
        let allowFalse = args.keyword("allow_false")?.isTruthy ?? false
        if case .bool(false) = input, allowFalse { return input }
        if !input.isTruthy || (input.isEmptyCollection ?? false) { return args[0] }
        return input
    }
}

extension LiquidValue {
    /// Ruby's `to_s` as filters see it: arrays and objects as `inspect`, floats as `Float#to_s`.
    var rubyString: String {
        switch self {
        case .array, .object: return rubyInspect
        case .drop(let d): return d.drop.liquidSelf.rubyString
        default: return renderedString
        }
    }
}
