/// Array filters.
enum ArrayFilters {
    static let all: [LiquidFilter] = [
        LiquidFilter("join", arguments: 0...1) { input, args, context in
            let sep = args.has(0) ? try context.rubyText(args[0]) : " "
            // Built piece by piece against the limit: a short array of long strings (or a long
            // separator) makes a string far larger than the array's memory.
            let limit = context.limits.stringBytes
            var out: [UInt8] = []
            for (i, item) in try inputItems(input, limit: context.limits.arrayElements).enumerated() {
                if i > 0 { appendUTF8(sep, to: &out) }
                guard item.writeRubyString(to: &out, limit: limit) else { throw LiquidError.Reason.limitExceeded(.stringBytes(limit)) }
            }
            if out.count > limit { throw LiquidError.Reason.limitExceeded(.stringBytes(limit)) }
            return .string(String(decoding: out, as: UTF8.self))
        },
        LiquidFilter("first") { input, _, context in
            switch input {
            case .array(let a): return a.first ?? .nil
            case .range(let lo, let hi): return lo <= hi ? .int(lo) : .nil
            case .string(let s): return s.unicodeScalars.first.map { .string(String($0)) } ?? .nil
            case .object(let o): return o.first.map { .array([.string($0.key), $0.value]) } ?? .nil
            default: return .nil
            }
        },
        LiquidFilter("last") { input, _, context in
            switch input {
            case .array(let a): return a.last ?? .nil
            case .range(let lo, let hi): return lo <= hi ? .int(hi) : .nil
            case .string(let s): return s.unicodeScalars.last.map { .string(String($0)) } ?? .nil
            default: return .nil
            }
        },
        LiquidFilter("reverse") { input, _, context in .array(try inputItems(input, limit: context.limits.arrayElements).reversed()) },
        LiquidFilter("compact", arguments: 0...1) { input, args, context in
            let items = try inputItems(input, limit: context.limits.arrayElements)
            if args[0].isNil { return .array(items.filter { !$0.isNil }) }
            var out: [LiquidValue] = []
            for item in items {
                switch try rubyIndex(item, args[0]) {
                case .value(let v): if !v.isNil { out.append(item) }
                case .noMethod: return .nil
                }
            }
            return .array(out)
        },
        LiquidFilter("uniq", arguments: 0...1) { input, args, context in
            let items = try inputItems(input, limit: context.limits.arrayElements)
            // Ruby's `uniq` compares with `eql?` (1 and 1.0 differ), as `LiquidValue`'s `==` does.
            var seen = Set<LiquidValue>()
            var out: [LiquidValue] = []
            for item in items {
                var key = item
                if !args[0].isNil {
                    switch try rubyIndex(item, args[0]) {
                    case .value(let v): key = v
                    case .noMethod: return .nil
                    }
                }
                if seen.insert(key).inserted { out.append(item) }
            }
            return .array(out)
        },
        LiquidFilter("concat", arguments: 1...1) { input, args, context in
            guard let other = try arrayLike(args[0], limit: context.limits.arrayElements) else {
                throw LiquidError.Reason.argument("concat filter requires an array argument")
            }
            return .array(try inputItems(input, limit: context.limits.arrayElements) + other)
        },
        LiquidFilter("map", arguments: 1...1) { input, args, context in
            .array(try inputItems(input, limit: context.limits.arrayElements).map { item in
                switch try rubyIndex(item, args[0]) {
                case .value(let v): return v
                case .noMethod: return .nil
                }
            })
        },
        LiquidFilter("sort", arguments: 0...1) { input, args, context in
            try sortFilter(input, args[0], natural: false, context: context)
        },
        LiquidFilter("sort_natural", arguments: 0...1) { input, args, context in
            try sortFilter(input, args[0], natural: true, context: context)
        },
        LiquidFilter("where", arguments: 1...2) { input, args, context in
            try filterArray(input, args, limit: context.limits.arrayElements, empty: .array([])) { items, test in .array(try items.filter(test)) }
        },
        LiquidFilter("reject", arguments: 1...2) { input, args, context in
            try filterArray(input, args, limit: context.limits.arrayElements, empty: .array([])) { items, test in .array(try items.filter { try !test($0) }) }
        },
        LiquidFilter("find", arguments: 1...2) { input, args, context in
            try filterArray(input, args, limit: context.limits.arrayElements, empty: .nil) { items, test in try items.first(where: test) ?? .nil }
        },
        LiquidFilter("find_index", arguments: 1...2) { input, args, context in
            try filterArray(input, args, limit: context.limits.arrayElements, empty: .nil) { items, test in try items.firstIndex(where: test).map { .int($0) } ?? .nil }
        },
        LiquidFilter("has", arguments: 1...2) { input, args, context in
            try filterArray(input, args, limit: context.limits.arrayElements, empty: .bool(false)) { items, test in .bool(try items.contains(where: test)) }
        },
        LiquidFilter("sum", arguments: 0...1) { input, args, context in
            var total = LiquidNumber.int(0)
            for item in try inputItems(input, limit: context.limits.arrayElements) {
                var v = item
                if !args[0].isNil {
                    switch try rubyIndex(item, args[0]) {
                    case .value(let x): v = x
                    case .noMethod: v = .int(0)
                    }
                }
                total = try total.add(LiquidNumber.from(v))
            }
            return total.value
        },
    ]
}

/// A range's integers as an array; more than `limit` of them is ``LiquidLimit/arrayElements(_:)``
/// (a range is iterated without one, but a filter needs the elements).
func materialize(_ lo: Int, _ hi: Int, limit: Int) throws -> [LiquidValue] {
    let size = rangeSize(lo, hi)
    if size > limit { throw LiquidError.Reason.limitExceeded(.arrayElements(limit)) }
    return size == 0 ? [] : (lo...hi).map { .int($0) }
}

/// Arrays and ranges as arrays; `nil` otherwise.
func arrayLike(_ value: LiquidValue, limit: Int) throws -> [LiquidValue]? {
    switch value {
    case .array(let a): return a
    case .range(let lo, let hi): return try materialize(lo, hi, limit: limit)
    case .drop(let d): return try arrayLike(d.drop.liquidSelf, limit: limit)
    default: return nil
    }
}

/// The reference's `InputIterator`: arrays flattened, an object or scalar as one item, `nil` as
/// none. More than `limit` items is ``LiquidLimit/arrayElements(_:)``, found as they are
/// collected (nested arrays can flatten into far more items than they hold).
func inputItems(_ value: LiquidValue, limit: Int) throws -> [LiquidValue] {
    switch value {
    case .array(let a):
        if !a.contains(where: { if case .array = $0 { true } else { false } }) { return a }
        var out: [LiquidValue] = []
        out.reserveCapacity(min(a.count, limit))
        try flatten(a, into: &out, limit: limit)
        return out
    case .range(let lo, let hi): return try materialize(lo, hi, limit: limit)
    case .nil: return []
    case .drop(let d) where !(d.drop is SelfDrop) && !(d.drop.liquidSelf.isNil): return try inputItems(d.drop.liquidSelf, limit: limit)
    default: return [value]
    }
}

private func flatten(_ items: [LiquidValue], into out: inout [LiquidValue], limit: Int) throws {
    for item in items {
        if case .array(let inner) = item {
            try flatten(inner, into: &out, limit: limit)
        } else {
            if out.count >= limit { throw LiquidError.Reason.limitExceeded(.arrayElements(limit)) }
            out.append(item)
        }
    }
}

/// The result of Ruby's `item[property]`.
enum IndexResult {
    case value(LiquidValue)
    /// The item has no `[]` (nil, booleans, floats): the reference's filters give up with nil.
    case noMethod
}

/// Ruby's `item[property]`: object keys, substrings of strings, bits of integers; a
/// property of the wrong type for the item is an error, as in the reference.
func rubyIndex(_ item: LiquidValue, _ property: LiquidValue) throws -> IndexResult {
    switch (item, property) {
    case (.object(let o), .string(let k)): return .value(o[k] ?? .nil)
    case (.object, _): return .value(.nil)
    case (.drop(let d), _): return .value(d.drop.liquidProperty(property.renderedString) ?? .nil)
    // Ruby raises for `"str"[nil]`; Golden Liquid expects the filter to give nothing.
    case (.string, .nil), (.int, .nil): return .noMethod
    case (.string(let s), .string(let k)): return .value(s.containsBytes(of: k) ? .string(k) : .nil)
    case (.string(let s), .int(var i)):
        let chars = Array(s.unicodeScalars)
        if i < 0 { i += chars.count }
        return .value(i >= 0 && i < chars.count ? .string(String(chars[i])) : .nil)
    case (.int(let n), .int(let bit)):
        return .value(.int(bit < 0 || bit >= 64 ? (n < 0 && bit >= 64 ? 1 : 0) : (n >> bit) & 1))
    case (.string, _), (.int, _), (.bigInt, _):
        throw LiquidError.Reason.argument("cannot select the property \(property.briefInspect)")
    default:
        return .noMethod
    }
}

/// The reference's `filter_array` behind `where`, `reject`, `find`, `find_index` and `has`:
/// with no target (or a nil one) items whose property is truthy, else those equal to it.
func filterArray(_ input: LiquidValue, _ args: FilterArguments, limit: Int, empty: LiquidValue,
                 _ body: ([LiquidValue], (LiquidValue) throws -> Bool) throws -> LiquidValue) throws -> LiquidValue {
    let items = try inputItems(input, limit: limit)
    if items.isEmpty { return empty }
    let property = args[0], target = args[1]
    struct GiveUp: Error {}
    do {
        return try body(items) { item in
            switch try rubyIndex(item, property) {
            case .value(let v): return target.isNil ? v.isTruthy : v.liquidEquals(target)
            case .noMethod: throw GiveUp()
            }
        }
    } catch is GiveUp {
        return .nil
    }
}

/// `sort` and `sort_natural`: nil last; incomparable values are an error for `sort`;
/// `sort_natural` compares `to_s` case-insensitively.
func sortFilter(_ input: LiquidValue, _ property: LiquidValue, natural: Bool, context: RenderContext) throws -> LiquidValue {
    let items = try inputItems(input, limit: context.limits.arrayElements)
    if items.isEmpty { return .array([]) }
    var keys: [LiquidValue] = []
    if property.isNil {
        keys = items
    } else {
        for item in items {
            switch item {
            case .object, .drop, .string, .int:
                switch try rubyIndex(item, property) {
                case .value(let v): keys.append(v)
                case .noMethod: return .nil
                }
            default: return .nil
            }
        }
    }
    var failure: LiquidError.Reason?
    // sort_natural compares each key's lower-cased text: made once per key, not per comparison.
    let naturalKeys = natural ? try keys.map { Array(try context.rubyText($0).lowercased().utf8) } : []
    let order = Array(items.indices).sorted { a, b in
        let x = keys[a], y = keys[b]
        if x.isNil || y.isNil {
            if x.isNil && y.isNil { return a < b }
            return !x.isNil
        }
        if natural {
            let l = naturalKeys[a], r = naturalKeys[b]
            return l == r ? a < b : l.lexicographicallyPrecedes(r)
        }
        guard let c = try? x.liquidCompare(y) else {
            failure = .argument("cannot sort values of incompatible types")
            return a < b
        }
        return c == 0 ? a < b : c < 0
    }
    if let failure { throw failure }
    return .array(order.map { items[$0] })
}
