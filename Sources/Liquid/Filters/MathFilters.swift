import Foundation

/// A number as the reference's math filters see it: an integer, or a decimal (Ruby's
/// `BigDecimal`, which the reference converts floats to before arithmetic, so
/// `0.1 | plus: 0.2` is `0.3`).
///
/// Integers past 64 bits are exact, as Ruby's bignums (``BigInt``, up to ``BigInt/maxBits``);
/// where a decimal cannot hold a number (beyond about 1e125, Infinity, NaN), the arithmetic is
/// done in floating point, as Ruby's `BigDecimal#to_f` would end up.
enum LiquidNumber {
    case int(Int)
    /// An integer past 64 bits.
    case big(BigInt)
    case decimal(Decimal)
    /// A float out of the decimal's range, or not finite.
    case float(Double)

    /// Ruby's `Utils.to_number`.
    static func from(_ value: LiquidValue) -> LiquidNumber {
        switch value.resolved {
        case .int(let i): return .int(i)
        case .bigInt(let b): return .big(b)
        case .double(let d): return decimalFromDouble(d).map { .decimal($0) } ?? .float(d)
        case .string(let s): return parse(s)
        default: return .int(0)
        }
    }

    /// An integer result: `.int` when it fits.
    static func integer(_ b: BigInt) -> LiquidNumber { b.exactInt.map { .int($0) } ?? .big(b) }

    /// The number as a big integer, when it is an integer.
    var bigValue: BigInt? {
        switch self {
        case .int(let i): return BigInt(i)
        case .big(let b): return b
        default: return nil
        }
    }

    /// Numeric strings: `-?\d+` as integers, `-?\d+\.\d+` as decimals, anything else 0.
    static func parse(_ s: String) -> LiquidNumber {
        let t = s.trimmingCharacters()
        var body = Substring(t)
        if body.first == "-" || body.first == "+" { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard !body.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isDigit) }),
              t.first != "+" || parts.count == 1 else {
            // Not a decimal: Ruby's `to_i`, the leading integer ("12abc" is 12, "6-3" is 6).
            return .int(rubyStringToInt(s))
        }
        if parts.count == 1, let i = Int(t) { return .int(i) }
        if parts.count == 1, let b = BigInt(t) { return .integer(b) }
        if let d = Decimal(string: t), !d.isNaN { return .decimal(d) }
        return .float(Double(t) ?? 0)
    }

    var decimal: Decimal {
        switch self {
        case .int(let i): return Decimal(i)
        case .big(let b): return Decimal(string: b.description) ?? .nan
        case .decimal(let d): return d
        case .float(let d): return decimalFromDouble(d) ?? .nan
        }
    }

    /// The number as a double.
    var double: Double {
        switch self {
        case .int(let i): return Double(i)
        case .big(let b): return b.double
        case .decimal(let d): return doubleFromDecimal(d)
        case .float(let d): return d
        }
    }

    /// Back to a value: decimals become floats, as the reference's `to_f`.
    var value: LiquidValue {
        switch self {
        case .int(let i): return .int(i)
        case .big(let b): return .normalizing(b)
        case .decimal(let d): return .double(doubleFromDecimal(d))
        case .float(let d): return .double(d)
        }
    }

    /// `true` when either side needs floating point (see ``float(_:)``).
    private func isFloat(_ other: LiquidNumber) -> Bool {
        if case .float = self { return true }
        if case .float = other { return true }
        return false
    }

    /// A decimal result, or the same operation in floating point when the decimal overflowed.
    private static func decimalOr(_ d: Decimal, _ fallback: () -> Double) -> LiquidNumber {
        d.isNaN ? .float(fallback()) : .decimal(d)
    }

    func add(_ other: LiquidNumber) throws -> LiquidNumber {
        if case .int(let a) = self, case .int(let b) = other {
            let (r, o) = a.addingReportingOverflow(b)
            return o ? .integer(try BigInt.adding(BigInt(a), BigInt(b))) : .int(r)
        }
        if let a = bigValue, let b = other.bigValue { return .integer(try BigInt.adding(a, b)) }
        if isFloat(other) { return .float(double + other.double) }
        return Self.decimalOr(decimal + other.decimal) { double + other.double }
    }

    func subtract(_ other: LiquidNumber) throws -> LiquidNumber {
        if case .int(let a) = self, case .int(let b) = other {
            let (r, o) = a.subtractingReportingOverflow(b)
            return o ? .integer(try BigInt.subtracting(BigInt(a), BigInt(b))) : .int(r)
        }
        if let a = bigValue, let b = other.bigValue { return .integer(try BigInt.subtracting(a, b)) }
        if isFloat(other) { return .float(double - other.double) }
        return Self.decimalOr(decimal - other.decimal) { double - other.double }
    }

    func multiply(_ other: LiquidNumber) throws -> LiquidNumber {
        if case .int(let a) = self, case .int(let b) = other {
            let (r, o) = a.multipliedReportingOverflow(by: b)
            return o ? .integer(try BigInt.multiplying(BigInt(a), BigInt(b))) : .int(r)
        }
        if let a = bigValue, let b = other.bigValue { return .integer(try BigInt.multiplying(a, b)) }
        if isFloat(other) { return .float(double * other.double) }
        return Self.decimalOr(decimal * other.decimal) { double * other.double }
    }

    func divide(_ other: LiquidNumber) throws -> LiquidNumber {
        if other.isZero {
            // Only integers fail; a decimal or float divided by zero is Infinity (or NaN), as
            // BigDecimal's division is.
            if bigValue != nil && other.bigValue != nil { throw LiquidError.Reason.zeroDivision }
            return .float(double / other.double)
        }
        if case .int(let a) = self, case .int(let b) = other, !(a == Int.min && b == -1) {
            // Ruby's Integer#/ floors.
            var q = a / b
            if (a % b != 0) && ((a < 0) != (b < 0)) { q -= 1 }
            return .int(q)
        }
        if let a = bigValue, let b = other.bigValue, let (q, _) = BigInt.flooredDivision(a, b) { return .integer(q) }
        if isFloat(other) { return .float(double / other.double) }
        return Self.decimalOr(decimal / other.decimal) { double / other.double }
    }

    func modulo(_ other: LiquidNumber) throws -> LiquidNumber {
        if other.isZero { throw LiquidError.Reason.zeroDivision }
        if case .int(let a) = self, case .int(let b) = other {
            if b == -1 { return .int(0) }
            var r = a % b
            if r != 0 && ((r < 0) != (b < 0)) { r += b }
            return .int(r)
        }
        if let a = bigValue, let b = other.bigValue, let (_, r) = BigInt.flooredDivision(a, b) { return .integer(r) }
        if isFloat(other) {
            // Floored, as Ruby's Float#%.
            let a = double, b = other.double
            return .float(a - b * (a / b).rounded(.down))
        }
        // Floored modulo, as Ruby's BigDecimal#%: a - b * floor(a / b).
        let a = decimal, b = other.decimal
        var q = a / b
        var floored = Decimal()
        NSDecimalRound(&floored, &q, 0, .down)
        let r = a - b * floored
        if r.isNaN { return .float(double - other.double * (double / other.double).rounded(.down)) }
        return .decimal(r)
    }

    var isZero: Bool {
        switch self {
        case .int(let i): return i == 0
        case .big(let b): return b.isZero
        case .decimal(let d): return d.isZero
        case .float(let d): return d == 0
        }
    }

    func compare(_ other: LiquidNumber) -> Int {
        if case .int(let a) = self, case .int(let b) = other { return a < b ? -1 : (a == b ? 0 : 1) }
        if let a = bigValue, let b = other.bigValue { return a < b ? -1 : (a == b ? 0 : 1) }
        if isFloat(other) {
            let a = double, b = other.double
            return a < b ? -1 : (a == b ? 0 : 1)
        }
        let a = decimal, b = other.decimal
        return a < b ? -1 : (a == b ? 0 : 1)
    }
}

/// `BigDecimal(float.to_s)`: the decimal of the float's shortest printed form; `nil` for a
/// float a decimal cannot hold (not finite, or an exponent beyond about ±125).
func decimalFromDouble(_ d: Double) -> Decimal? {
    if !d.isFinite { return nil }
    if d == 0 { return 0 }
    // The shortest round-tripping digits, as Ruby's `Float#to_s` (and so `BigDecimal(f.to_s)`) has them.
    let (digits, decpt) = shortestDigits(d.magnitude)
    let exponent = decpt - digits.utf8.count
    guard exponent >= -125 && exponent <= 110 else { return nil }
    var significand: UInt64 = 0
    for b in digits.utf8 { significand = significand &* 10 &+ UInt64(b &- 48) }
    return Decimal(sign: d < 0 ? .minus : .plus, exponent: exponent, significand: Decimal(significand))
}

/// `BigDecimal#to_f`.
func doubleFromDecimal(_ d: Decimal) -> Double {
    Double(d.description) ?? .nan
}

/// An integer from a number (rounding toward zero) when it has one within `Int`; `nil` for
/// Infinity, NaN and numbers beyond 64 bits.
func integer(exactlyTruncating d: Double) -> Int? {
    guard d.isFinite else { return nil }
    return Int(exactly: d.rounded(.towardZero))
}

/// Ruby's `Utils.to_integer` for filter arguments.
func toInteger(_ value: LiquidValue) throws -> Int {
    switch value.resolved {
    case .int(let i): return i
    // As far as any string or array reaches, an integer past 64 bits is Int.max or Int.min.
    case .bigInt(let b): return b.isNegative ? Int.min : Int.max
    case .double(let d) where d.isFinite && d.rounded(.towardZero) == d && d.magnitude >= 0x1p63:
        // An integer past 64 bits (render data's bignums arrive as floats): as far as any
        // string or array reaches, Int.max and Int.min are the same.
        return d < 0 ? Int.min : Int.max
    case .string(let s):
        if let i = Int(s.trimmingCharacters()) { return i }
        throw LiquidError.Reason.argument("invalid integer")
    case .nil: throw LiquidError.Reason.argument("invalid integer")
    default: throw LiquidError.Reason.argument("invalid integer")
    }
}

/// Math filters.
enum MathFilters {
    static let all: [LiquidFilter] = [
        binary("plus", { $0.addingReportingOverflow($1) }) { try $0.add($1) },
        binary("minus", { $0.subtractingReportingOverflow($1) }) { try $0.subtract($1) },
        binary("times", { $0.multipliedReportingOverflow(by: $1) }) { try $0.multiply($1) },
        LiquidFilter("divided_by", arguments: 1...1) { input, args, context in
            // An integer over a whole float whose only prime factors are 2 and 5 (`100.0`):
            // the decimal quotient terminates, so BigDecimal's exact quotient, made a float, is
            // the float division's correctly rounded one.
            if case .int(let a) = input, case .double(let b) = args[0], let q = terminatingQuotient(a, b) { return .double(q) }
            return try generalDividedBy.function(input, args, context)
        },
        binary("modulo", { a, b in
            guard b != 0, b != -1 else { return (0, true) }
            let r = a % b
            return (r != 0 && ((r < 0) != (b < 0)) ? r + b : r, false)
        }) { try $0.modulo($1) },
        binary("at_least") { $0.compare($1) >= 0 ? $0 : $1 },
        binary("at_most") { $0.compare($1) <= 0 ? $0 : $1 },
        LiquidFilter("abs") { input, _, _ in
            switch LiquidNumber.from(input) {
            case .int(let i): return i == Int.min ? .normalizing(BigInt(i).magnitude) : .int(abs(i))
            case .big(let b): return .normalizing(b.magnitude)
            case .decimal(let d): return LiquidNumber.decimal(d < 0 ? -d : d).value
            case .float(let d): return .double(d.magnitude)
            }
        },
        LiquidFilter("ceil") { input, _, _ in roundNumber(LiquidNumber.from(input), .up) },
        LiquidFilter("floor") { input, _, _ in roundNumber(LiquidNumber.from(input), .down) },
        LiquidFilter("round", arguments: 0...1) { input, args, _ in
            if let special = nonFinite(input) { return special }
            // Fast path: whole-number rounding of a float half away from zero matches
            // BigDecimal's on the float's decimal form (an exact .5 is exact in binary too).
            if case .double(let d) = input, args[0].isNil || args[0] == .int(0), d.magnitude < 9.0e15 {
                return .int(Int(d.rounded(.toNearestOrAwayFromZero)))
            }
            // Fast path: a float to 1–15 places, on its shortest digits (BigDecimal's view of it).
            if case .double(let d) = input, case .int(let places) = args[0], let r = roundShortestDigits(d, places: places) {
                return .double(r)
            }
            let n = LiquidNumber.from(input)
            let places: Int
            switch LiquidNumber.from(args[0]) {
            case .int(let i): places = i
            case let other:
                guard let p = integer(exactlyTruncating: other.double) else {
                    throw LiquidError.Reason.numberOutOfRange("round: \(args[0].renderedString) places")
                }
                places = p
            }
            if n.bigValue != nil, places >= 0 { return n.value }
            if case .float(let d) = n {
                // Beyond a decimal's range: a float has no digits left to round at any place
                // a template can ask for; to a whole number it is Ruby's integer.
                return places <= 0 ? wholeNumber(d, .toNearestOrAwayFromZero) : .double(d)
            }
            var d = n.decimal
            var r = Decimal()
            NSDecimalRound(&r, &d, max(min(places, 30), -30), .plain)
            // Ruby: round(n) with n <= 0 gives an integer, otherwise a float.
            return places <= 0 ? decimalToInt(r) : .double(doubleFromDecimal(r))
        },
    ]

    /// `divided_by` in general: integers floored, decimals exact, zero as Ruby has it.
    static let generalDividedBy = binary("divided_by", { a, b in
            // Ruby's Integer#/ floors; zero and Int.min / -1 take the general path.
            guard b != 0, !(a == Int.min && b == -1) else { return (0, true) }
            let q = a / b
            return ((a % b != 0) && ((a < 0) != (b < 0)) ? q - 1 : q, false)
        }) { try $0.divide($1) }

    static func binary(_ name: String, _ op: @escaping @Sendable (LiquidNumber, LiquidNumber) throws -> LiquidNumber) -> LiquidFilter {
        LiquidFilter(name, arguments: 1...1) { input, args, _ in
            try op(LiquidNumber.from(input), LiquidNumber.from(args[0])).value
        }
    }

    /// A binary filter with a fast path for two integers that do not overflow (no
    /// ``LiquidNumber``, whose bignum case makes every copy count references).
    static func binary(_ name: String, _ fast: @escaping @Sendable (Int, Int) -> (partialValue: Int, overflow: Bool),
                       _ op: @escaping @Sendable (LiquidNumber, LiquidNumber) throws -> LiquidNumber) -> LiquidFilter {
        LiquidFilter(name, arguments: 1...1) { input, args, _ in
            if case .int(let a) = input, case .int(let b) = args[0] {
                let (r, overflow) = fast(a, b)
                if !overflow { return .int(r) }
            }
            return try op(LiquidNumber.from(input), LiquidNumber.from(args[0])).value
        }
    }

    /// `ceil`/`floor`: to an integer.
    static func roundNumber(_ n: LiquidNumber, _ mode: NSDecimalNumber.RoundingMode) -> LiquidValue {
        if case .float(let d) = n {
            // Beyond a decimal's range: Ruby's integer of it (Infinity and NaN stay).
            return wholeNumber(d, mode == .up ? .up : .down)
        }
        guard case .decimal(var d) = n else { return n.value }
        var r = Decimal()
        NSDecimalRound(&r, &d, 0, mode)
        return decimalToInt(r)
    }

    /// The integer Ruby's `BigDecimal(float.to_s).round`/`ceil`/`floor` gives for a float past
    /// a decimal's range: a huge one is its shortest digits with zeros (`1e300` is 1 and 300
    /// zeros), a tiny one rounds to -1, 0 or 1. Infinity and NaN stay as they are.
    static func wholeNumber(_ d: Double, _ rule: FloatingPointRoundingRule) -> LiquidValue {
        guard d.isFinite else { return .double(d) }
        if d.magnitude < 0x1p62 { return .int(Int(d.rounded(rule))) }
        let (digits, decpt) = shortestDigits(d.magnitude)
        guard decpt >= digits.count,
              let big = BigInt((d < 0 ? "-" : "") + digits + String(repeating: "0", count: decpt - digits.count)) else { return .double(d) }
        return .normalizing(big)
    }

    static func nonFinite(_ v: LiquidValue) -> LiquidValue? {
        if case .double(let d) = v, !d.isFinite { return v }
        return nil
    }

    static func decimalToInt(_ d: Decimal) -> LiquidValue {
        let n = NSDecimalNumber(decimal: d)
        let i = n.int64Value
        if Decimal(i) == d { return .int(Int(i)) }
        // A whole number past 64 bits: Ruby's `round`, `ceil` and `floor` give a bignum.
        var whole = Decimal(), copy = d
        NSDecimalRound(&whole, &copy, 0, .plain)
        if whole == d, let big = BigInt(d.description) { return .normalizing(big) }
        return .double(doubleFromDecimal(d))
    }
}

/// `a / b` when it can be done in floating point with BigDecimal's result: `a` exact in a
/// double, `b` a whole number below 2^53 whose only prime factors are 2 and 5, so that the
/// decimal quotient terminates (BigDecimal's is then exact, and `to_f` of it is the correctly
/// rounded float division). `nil` otherwise.
func terminatingQuotient(_ a: Int, _ b: Double) -> Double? {
    guard a.magnitude <= 1 << 53, b != 0, b.magnitude <= 0x1p53, b.rounded(.towardZero) == b else { return nil }
    var m = Int(b.magnitude)
    while m % 2 == 0 { m /= 2 }
    while m % 5 == 0 { m /= 5 }
    return m == 1 ? Double(a) / b : nil
}

/// `round: places` of a float as Ruby's `BigDecimal(float.to_s).round(places).to_f` (half away
/// from zero on the shortest digits), for 1 to 15 places and floats printed without an
/// exponent (1e-4 up to 1e15); `nil` otherwise, for the decimal path.
func roundShortestDigits(_ d: Double, places: Int) -> Double? {
    guard places >= 1 && places <= 15, d.isFinite, d.magnitude >= 1e-4, d.magnitude < 1e15 else { return nil }
    var digits = Array(d.description.utf8)  // "-123.456": Ruby's `to_s` in this range
    guard let dot = digits.firstIndex(of: UInt8(ascii: ".")), !digits.contains(UInt8(ascii: "e")) else { return nil }
    let fraction = digits.count - dot - 1
    if fraction <= places { return d }
    let roundUp = digits[dot + places + 1] >= UInt8(ascii: "5")
    digits.removeSubrange((dot + places + 1)...)
    if roundUp {
        // Add one at the last kept place, carrying leftwards over nines (and the point).
        var i = digits.count - 1
        while i >= 0 {
            if digits[i] == UInt8(ascii: ".") { i -= 1; continue }
            if digits[i] == UInt8(ascii: "-") { break }
            if digits[i] == UInt8(ascii: "9") { digits[i] = UInt8(ascii: "0"); i -= 1; continue }
            digits[i] += 1
            break
        }
        if i < 0 || digits[i] == UInt8(ascii: "-") {
            digits.insert(UInt8(ascii: "1"), at: i < 0 ? 0 : i + 1)
        }
    }
    return Double(String(decoding: digits, as: UTF8.self))
}
