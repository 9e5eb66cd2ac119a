// Truthiness, equality, ordering, blank/empty and property lookup, as the Ruby reference
// (and Rails' `blank?`) define them.

extension LiquidValue {
    /// Liquid truthiness: only `nil` and `false` are falsy.
    public var isTruthy: Bool {
        switch self {
        case .nil, .bool(false): return false
        default: return true
        }
    }

    /// Rails' `blank?`: `nil`, `false`, whitespace-only strings, empty arrays and objects.
    public var isBlank: Bool {
        switch self {
        case .nil, .bool(false): return true
        case .bool(true), .int, .bigInt, .double, .range: return false
        case .string(let s):
            // Rails: /\A[[:space:]]*\z/. ASCII bytes first; other text by scalar properties.
            var ascii = true
            for b in s.utf8 {
                if b >= 0x80 { ascii = false; break }
                if !isSpace(b) { return false }
            }
            return ascii || s.unicodeScalars.allSatisfy(\.properties.isWhitespace)
        case .array(let a): return a.isEmpty
        case .object(let o): return o.isEmpty
        case .drop(let d):
            return d.drop.liquidSelf.isNil ? false : d.drop.liquidSelf.isBlank
        }
    }

    /// Ruby's `empty?` where the value has it (strings, arrays, objects); `nil` otherwise.
    var isEmptyCollection: Bool? {
        switch self {
        case .string(let s): return s.isEmpty
        case .array(let a): return a.isEmpty
        case .object(let o): return o.isEmpty
        // A range has no `empty?` in Ruby: `(1..0)` is neither empty nor replaced by `default`.
        case .range: return nil
        case .drop(let d):
            return d.drop.liquidSelf.isEmptyCollection
        default: return nil
        }
    }

    /// The value a drop stands for; other values unchanged.
    @inline(__always) var resolved: LiquidValue {
        if case .drop(let d) = self, !(d.drop is LiquidTime), !(d.drop is SelfDrop) { return d.drop.liquidSelf }
        return self
    }

    /// Ruby's `==` between two values (`blank` and `empty` literals are handled where they are
    /// written, in comparisons: ``RenderContext/methodLiteral(_:)``).
    func liquidEquals(_ other: LiquidValue) -> Bool {
        if let same = LiquidValue.plainEquals(self, other) { return same }
        switch (self.resolved, other.resolved) {
        case (.int(let a), .int(let b)): return a == b
        case (.int(let a), .double(let b)): return Double(a) == b
        case (.double(let a), .int(let b)): return a == Double(b)
        case (.bigInt(let a), .bigInt(let b)): return a == b
        case (.bigInt(let a), .double(let b)): return a.compare(toDouble: b) == 0
        case (.double(let a), .bigInt(let b)): return b.compare(toDouble: a) == 0
        case (.double(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.nil, .nil): return true
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.liquidEquals($1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { pair in b[pair.key].map { pair.value.liquidEquals($0) } ?? false }
        case (.range(let a, let b), .range(let c, let d)): return a == c && b == d
        case (.drop(let a), .drop(let b)): return a == b
        default: return false
        }
    }

    /// `==` of two strings or two integers, borrowed; `nil` for every other pair.
    static func plainEquals(_ a: borrowing LiquidValue, _ b: borrowing LiquidValue) -> Bool? {
        switch a {
        case .string(let x):
            switch b {
            case .string(let y): return x == y
            default: return nil
            }
        case .int(let x):
            switch b {
            case .int(let y): return x == y
            default: return nil
            }
        default: return nil
        }
    }

    func matches(_ kind: MethodLiteral) -> Bool {
        switch kind {
        case .blank: return isBlank
        case .empty: return isEmptyCollection ?? false
        }
    }

    /// Ruby's `<=>` for `<`, `>`, `<=`, `>=`: numbers with numbers, strings with strings.
    /// Returns `nil` when either side has no ordering at all (nil, booleans, collections),
    /// which the reference treats as a false condition. Throws for a number against a string.
    func liquidCompare(_ other: LiquidValue) throws -> Int? {
        switch (self.resolved, other.resolved) {
        case (.int(let a), .int(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.int(let a), .double(let b)): return Self.compare(Double(a), b)
        case (.double(let a), .int(let b)): return Self.compare(a, Double(b))
        case (.double(let a), .double(let b)): return Self.compare(a, b)
        case (.bigInt(let a), .bigInt(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.bigInt(let a), .int(let b)): return a < BigInt(b) ? -1 : 1
        case (.int(let a), .bigInt(let b)): return BigInt(a) < b ? -1 : 1
        case (.bigInt(let a), .double(let b)): return a.compare(toDouble: b)
        case (.double(let a), .bigInt(let b)): return b.compare(toDouble: a).map { -$0 }
        case (.string(let a), .string(let b)):
            let x = Array(a.utf8), y = Array(b.utf8)
            return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        case (let a, let b):
            if a.isNumberOrString && b.isNumberOrString {
                throw LiquidError.Reason.argument("comparison of \(a.rubyClassName) with \(b.briefInspect) failed")
            }
            return nil
        }
    }

    private static func compare(_ a: Double, _ b: Double) -> Int? {
        if a.isNaN || b.isNaN { return nil }
        return a < b ? -1 : (a == b ? 0 : 1)
    }

    var isNumberOrString: Bool {
        switch self {
        case .int, .bigInt, .double, .string: return true
        default: return false
        }
    }

    /// Ruby class name, for error messages.
    var rubyClassName: String {
        switch self {
        case .nil: return "NilClass"
        case .bool(let b): return b ? "TrueClass" : "FalseClass"
        case .int, .bigInt: return "Integer"
        case .double: return "Float"
        case .string: return "String"
        case .array: return "Array"
        case .object: return "Hash"
        case .range: return "Range"
        case .drop: return "Drop"
        }
    }

    /// `contains`: substring for strings, membership for arrays, key for objects.
    func liquidContains(_ needle: LiquidValue) -> Bool {
        switch (self.resolved, needle.resolved) {
        case (_, .nil), (_, .bool(false)): return false
        case (.string(let s), let n):
            // A needle longer than the string is not in it (and an array's text may be huge).
            guard let text = n.renderedString(limit: s.utf8.count) else { return false }
            return s.containsBytes(of: text)
        case (.array(let a), let n): return a.contains { $0.liquidEquals(n) }
        case (.object(let o), .string(let k)): return o[k] != nil
        case (.range(let lo, let hi), .int(let n)): return lo <= n && n <= hi
        default: return false
        }
    }

    /// Reads `key` from this value: object keys, array `size`/`first`/`last`, string `size`,
    /// range `first`/`last`/`size`, drop properties.
    public func property(_ key: String) -> LiquidValue { property(PropertyKey(key)) }

    /// ``property(_:)`` with a precomputed key.
    @inline(__always)
    public func property(_ key: PropertyKey) -> LiquidValue {
        switch self {
        case .object(let o):
            if let v = o[key] { return v }
            switch key.name {
            case "size": return .int(o.count)
            case "first":
                guard let first = o.first else { return .nil }
                return .array([.string(first.key), first.value])
            default: return .nil
            }
        case .array(let a):
            switch key.name {
            case "size": return .int(a.count)
            case "first": return a.first ?? .nil
            case "last": return a.last ?? .nil
            default: return .nil
            }
        case .string(let s):
            switch key.name {
            case "size": return .int(s.codePointCount)
            // ActiveSupport's `first`/`last`: a character, "" for an empty string.
            case "first": return .string(s.unicodeScalars.first.map { String($0) } ?? "")
            case "last": return .string(s.unicodeScalars.last.map { String($0) } ?? "")
            default: return .nil
            }
        case .int:
            return key.name == "size" ? .int(8) : .nil  // Integer#size
        case .bigInt(let b):
            return key.name == "size" ? .int(b.rubySize) : .nil
        case .range(let lo, let hi):
            switch key.name {
            case "size": return .int(rangeSize(lo, hi))
            case "first": return .int(lo)
            case "last": return .int(hi)
            default: return .nil
            }
        case .drop(let d):
            if let v = d.drop.liquidProperty(key) { return v }
            let inner = d.drop.liquidSelf
            return inner.isNil ? .nil : inner.property(key)
        default:
            return .nil
        }
    }

    /// Reads `self[index]`: array elements (negative from the end); objects by key.
    @inline(__always)
    func element(_ index: LiquidValue) -> LiquidValue {
        switch (self, index) {
        case (.array(let a), .int(var i)):
            if i < 0 { i += a.count }
            return i >= 0 && i < a.count ? a[i] : .nil
        case (.array(let a), .double(let d)):
            guard var i = integer(exactlyTruncating: d) else { return .nil }
            if i < 0 { i += a.count }
            return i >= 0 && i < a.count ? a[i] : .nil
        case (.object(let o), .string(let k)): return o[k] ?? .nil
        case (.object, .range): return .nil  // a range is no hash key
        case (.object(let o), let k): return k.renderedString(limit: 1 << 16).flatMap { o[$0] } ?? .nil
        // `a['first']`, `a[name]`: a key, never the `size`/`first`/`last` command.
        case (.array, .string), (.range, .string), (.string, .string): return .nil
        case (.drop, .string(let k)):
            return property(k)
        default: return .nil
        }
    }
}

/// The number of integers in `lo...hi` (0 when `lo > hi`), `Int.max` when that many do not fit.
func rangeSize(_ lo: Int, _ hi: Int) -> Int {
    if lo > hi { return 0 }
    let (span, overflow) = hi.subtractingReportingOverflow(lo)
    return overflow || span == Int.max ? Int.max : span + 1
}
