/// Array filters.
enum ArrayFilters {
    static let all: [LiquidFilter] = [
        LiquidFilter("join", arguments: 0...1) { input, args, _ in
            let sep = args.has(0) ? args[0].rubyString : " "
            guard let items = arrayLike(input) else { return .string(input.rubyString) }
            return .string(items.map { $0.joinString }.joined(separator: sep))
        },
        LiquidFilter("first") { input, _, _ in
            switch input {
            case .array(let a): return a.first ?? .nil
            case .range(let lo, let hi): return lo <= hi ? .int(lo) : .nil
            case .string(let s): return s.first.map { .string(String($0)) } ?? .nil
            case .object(let o): return o.keys.first.map { .array([.string($0), o.values[0]]) } ?? .nil
            default: return .nil
            }
        },
        LiquidFilter("last") { input, _, _ in
            switch input {
            case .array(let a): return a.last ?? .nil
            case .range(let lo, let hi): return lo <= hi ? .int(hi) : .nil
            case .string(let s): return s.last.map { .string(String($0)) } ?? .nil
            default: return .nil
            }
        },
        LiquidFilter("reverse") { input, _, _ in .array((arrayLike(input) ?? [input]).reversed()) },
        LiquidFilter("compact", arguments: 0...1) { input, args, ctx in
            let items = arrayLike(input) ?? [input]
            if args.has(0) {
                let key = args[0].rubyString
                return .array(items.filter { !$0.property(key).isNil })
            }
            return .array(items.filter { !$0.isNil })
        },
        LiquidFilter("uniq", arguments: 0...1) { input, args, _ in
            let items = arrayLike(input) ?? [input]
            var seen: [LiquidValue] = []
            var out: [LiquidValue] = []
            for item in items {
                let key = args.has(0) ? item.property(args[0].rubyString) : item
                if !seen.contains(where: { $0 == key }) {
                    seen.append(key)
                    out.append(item)
                }
            }
            return .array(out)
        },
        LiquidFilter("concat", arguments: 1...1) { input, args, _ in
            guard let other = arrayLike(args[0]) else {
                throw LiquidError.Reason.argument("concat filter requires an array argument")
            }
            return .array((arrayLike(input) ?? (input.isNil ? [] : [input])) + other)
        },
        LiquidFilter("map", arguments: 1...1) { input, args, _ in
            let key = args[0].rubyString
            let items = flattenedItems(input)
            return .array(try items.map { item in
                switch item {
                case .object, .drop: return item.property(key)
                case .nil: return .nil
                default: throw LiquidError.Reason.argument("cannot select the property '\(key)'")
                }
            })
        },
        LiquidFilter("sort", arguments: 0...1) { input, args, _ in
            let items = arrayLike(input) ?? [input]
            if args.has(0) {
                let key = args[0].rubyString
                return .array(try sortValues(items, by: { $0.property(key) }, natural: false))
            }
            return .array(try sortValues(items, by: { $0 }, natural: false))
        },
        LiquidFilter("sort_natural", arguments: 0...1) { input, args, _ in
            let items = arrayLike(input) ?? [input]
            if args.has(0) {
                let key = args[0].rubyString
                return .array(try sortValues(items, by: { $0.property(key) }, natural: true))
            }
            return .array(try sortValues(items, by: { $0 }, natural: true))
        },
        LiquidFilter("where", arguments: 1...2) { input, args, _ in
            .array(try selectItems(input, args, filterName: "where").filter { $0.1 }.map(\.0))
        },
        LiquidFilter("reject", arguments: 1...2) { input, args, _ in
            .array(try selectItems(input, args, filterName: "reject").filter { !$0.1 }.map(\.0))
        },
        LiquidFilter("find", arguments: 1...2) { input, args, _ in
            try selectItems(input, args, filterName: "find").first { $0.1 }?.0 ?? .nil
        },
        LiquidFilter("find_index", arguments: 1...2) { input, args, _ in
            try selectItems(input, args, filterName: "find_index").firstIndex { $0.1 }.map { .int($0) } ?? .nil
        },
        LiquidFilter("has", arguments: 1...2) { input, args, _ in
            .bool(try selectItems(input, args, filterName: "has").contains { $0.1 })
        },
        LiquidFilter("sum", arguments: 0...1) { input, args, _ in
            let items = flattenedItems(input)
            var total = LiquidNumber.int(0)
            for item in items {
                let v = args.has(0) ? item.property(args[0].rubyString) : item
                let n: LiquidNumber
                switch v {
                case .int(let i): n = .int(i)
                case .double(let d): n = .decimal(decimalFromDouble(d))
                case .string(let s): n = LiquidNumber.parse(s)
                default: n = .int(0)
                }
                total = try total.add(n)
            }
            return total.value
        },
    ]
}

extension LiquidValue {
    /// How `join` writes an element: arrays flattened, others as Ruby's `to_s`.
    var joinString: String {
        switch self {
        case .array(let a): return a.map(\.joinString).joined(separator: "")
        default: return rubyString
        }
    }
}

/// Arrays and ranges as arrays; `nil` otherwise.
func arrayLike(_ value: LiquidValue) -> [LiquidValue]? {
    switch value {
    case .array(let a): return a
    case .range(let lo, let hi): return lo > hi ? [] : (lo...hi).map { .int($0) }
    case .drop(let d): return arrayLike(d.drop.liquidSelf)
    default: return nil
    }
}

/// The reference flattens nested arrays for `map` and `sum`; a non-array is one item.
func flattenedItems(_ value: LiquidValue) -> [LiquidValue] {
    guard let items = arrayLike(value) else { return value.isNil ? [] : [value] }
    var out: [LiquidValue] = []
    for item in items {
        if case .array = item { out += flattenedItems(item) } else { out.append(item) }
    }
    return out
}

/// Evaluates `where`-style arguments: with one argument, items whose property is truthy;
/// with two, items whose property equals the value.
func selectItems(_ input: LiquidValue, _ args: FilterArguments, filterName: String) throws -> [(LiquidValue, Bool)] {
    let items = arrayLike(input) ?? (input.isNil ? [] : [input])
    let key = args[0].rubyString
    let hasTarget = args.has(1)
    let target = args[1]
    return items.map { item in
        let v: LiquidValue
        switch item {
        case .object, .drop: v = item.property(key)
        case .string(let s):
            // A string item matches when it contains the key (the reference's `include?`).
            return (item, !hasTarget && s.contains(key))
        default: return (item, false)
        }
        if hasTarget {
            if target.isNil { return (item, v.isNil) }
            return (item, v.liquidEquals(target))
        }
        return (item, v.isTruthy)
    }
}

/// Sorts as the reference does: numbers with numbers, strings with strings; a mix is an
/// error. `nil` sorts last. `natural` compares strings case-insensitively.
func sortValues(_ items: [LiquidValue], by key: (LiquidValue) -> LiquidValue, natural: Bool) throws -> [LiquidValue] {
    let keyed = items.map { (item: $0, key: key($0)) }
    var failure: LiquidError.Reason?
    let sorted = keyed.enumerated().sorted { a, b in
        let x = a.element.key, y = b.element.key
        if x.isNil != y.isNil { return !x.isNil }
        if x.isNil { return a.offset < b.offset }
        if natural, case .string(let s) = x, case .string(let t) = y {
            let l = s.lowercased(), r = t.lowercased()
            return l == r ? a.offset < b.offset : Array(l.utf8).lexicographicallyPrecedes(Array(r.utf8))
        }
        do {
            guard let c = try x.liquidCompare(y) else {
                failure = .argument("comparison of \(x.rubyClassName) with \(y.rubyClassName) failed")
                return a.offset < b.offset
            }
            return c == 0 ? a.offset < b.offset : c < 0
        } catch {
            failure = .argument("comparison of \(x.rubyClassName) with \(y.rubyClassName) failed")
            return a.offset < b.offset
        }
    }
    if let failure, !natural { throw failure }
    return sorted.map(\.element.item)
}
