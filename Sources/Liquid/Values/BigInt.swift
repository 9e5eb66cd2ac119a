/// An integer beyond 64 bits, as Ruby's `Integer` has them: `{{ 9223372036854775808 }}` prints
/// exactly, and `9223372036854775807 | plus: 1` is `9223372036854775808`, not a float.
///
/// At most ``maxBits`` bits (about 1,233 decimal digits): a result past that is
/// ``LiquidError/Reason/numberOutOfRange(_:)``, so that no template can grow a number without
/// bound. A value that fits in `Int` is never a `BigInt` in a ``LiquidValue`` (see
/// ``LiquidValue/normalizing(_:)``).
public struct BigInt: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The largest magnitude, in bits.
    public static let maxBits = 4096

    /// `true` for a number below zero.
    public private(set) var isNegative: Bool
    /// The magnitude, 32 bits per limb, least significant first, without leading zero limbs
    /// (zero has none).
    private(set) var limbs: [UInt32]

    init(negative: Bool, limbs: [UInt32]) {
        var l = limbs
        while let last = l.last, last == 0 { l.removeLast() }
        self.limbs = l
        self.isNegative = negative && !l.isEmpty
    }

    /// `value` as a big integer.
    public init(_ value: Int) {
        let magnitude = value.magnitude
        self.init(negative: value < 0, limbs: [UInt32(truncatingIfNeeded: magnitude), UInt32(truncatingIfNeeded: magnitude >> 32)])
    }

    /// A decimal integer (an optional `-` or `+`, then digits); `nil` for anything else or a
    /// number past ``maxBits``.
    public init?<S: StringProtocol>(_ text: S) {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" || digits.first == "+" {
            negative = digits.first == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy(isDigit), digits.utf8.count <= BigInt.maxBits / 3 else { return nil }
        var limbs: [UInt32] = []
        for b in digits.utf8 {
            // limbs = limbs * 10 + digit
            var carry = UInt64(b - 48)
            for i in limbs.indices {
                let v = UInt64(limbs[i]) * 10 + carry
                limbs[i] = UInt32(truncatingIfNeeded: v)
                carry = v >> 32
            }
            if carry != 0 { limbs.append(UInt32(carry)) }
        }
        self.init(negative: negative, limbs: limbs)
        guard bitWidth <= BigInt.maxBits else { return nil }
    }

    /// The bits the magnitude takes.
    var bitWidth: Int {
        guard let top = limbs.last else { return 0 }
        return (limbs.count - 1) * 32 + (32 - top.leadingZeroBitCount)
    }

    var isZero: Bool { limbs.isEmpty }

    /// The value as an `Int`, when it fits.
    public var exactInt: Int? {
        if limbs.count > 2 { return nil }
        var m: UInt64 = 0
        for (i, l) in limbs.enumerated() { m |= UInt64(l) << (32 * UInt64(i)) }
        if isNegative {
            if m <= UInt64(Int.max) { return -Int(m) }
            return m == UInt64(Int.max) + 1 ? Int.min : nil
        }
        return m <= UInt64(Int.max) ? Int(m) : nil
    }

    /// The nearest double (as Ruby's `Integer#to_f`).
    public var double: Double {
        var d = 0.0
        for l in limbs.reversed() { d = d * 4_294_967_296.0 + Double(l) }
        return isNegative ? -d : d
    }

    /// The decimal digits, with `-` when negative.
    public var description: String {
        if limbs.isEmpty { return "0" }
        var chunks: [UInt32] = []  // base 10^9, least significant first
        var rest = limbs
        while !rest.isEmpty {
            var remainder: UInt64 = 0
            for i in stride(from: rest.count - 1, through: 0, by: -1) {
                let v = (remainder << 32) | UInt64(rest[i])
                rest[i] = UInt32(v / 1_000_000_000)
                remainder = v % 1_000_000_000
            }
            while let last = rest.last, last == 0 { rest.removeLast() }
            chunks.append(UInt32(remainder))
        }
        var out = isNegative ? "-" : ""
        out += String(chunks.last!)
        for chunk in chunks.dropLast().reversed() {
            let s = String(chunk)
            out += String(repeating: "0", count: 9 - s.count) + s
        }
        return out
    }

    // MARK: Arithmetic

    private static func compareMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for i in stride(from: a.count - 1, through: 0, by: -1) where a[i] != b[i] {
            return a[i] < b[i] ? -1 : 1
        }
        return 0
    }

    private static func addMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(max(a.count, b.count) + 1)
        var carry: UInt64 = 0
        for i in 0..<max(a.count, b.count) {
            let v = UInt64(i < a.count ? a[i] : 0) + UInt64(i < b.count ? b[i] : 0) + carry
            out.append(UInt32(truncatingIfNeeded: v))
            carry = v >> 32
        }
        if carry != 0 { out.append(UInt32(carry)) }
        return out
    }

    /// `a - b` for `a >= b`.
    private static func subtractMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var out = a
        var borrow: Int64 = 0
        for i in 0..<a.count {
            var v = Int64(a[i]) - Int64(i < b.count ? b[i] : 0) - borrow
            borrow = 0
            if v < 0 { v += 1 << 32; borrow = 1 }
            out[i] = UInt32(v)
        }
        return out
    }

    private static func multiplyMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        if a.isEmpty || b.isEmpty { return [] }
        var out = [UInt32](repeating: 0, count: a.count + b.count)
        for i in 0..<a.count {
            var carry: UInt64 = 0
            for j in 0..<b.count {
                let v = UInt64(a[i]) * UInt64(b[j]) + UInt64(out[i + j]) + carry
                out[i + j] = UInt32(truncatingIfNeeded: v)
                carry = v >> 32
            }
            var k = i + b.count
            while carry != 0 {
                let v = UInt64(out[k]) + carry
                out[k] = UInt32(truncatingIfNeeded: v)
                carry = v >> 32
                k += 1
            }
        }
        return out
    }

    /// Quotient and remainder of magnitudes (truncated), bit by bit: at most ``maxBits``
    /// steps of a few limbs each.
    private static func divideMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> ([UInt32], [UInt32]) {
        if compareMagnitudes(a, b) < 0 { return ([], a) }
        let bits = BigInt(negative: false, limbs: a).bitWidth
        var quotient = [UInt32](repeating: 0, count: a.count)
        var remainder: [UInt32] = []
        for bit in stride(from: bits - 1, through: 0, by: -1) {
            // remainder = remainder * 2 + bit
            var carry: UInt32 = (a[bit / 32] >> UInt32(bit % 32)) & 1
            for i in remainder.indices {
                let next = remainder[i] >> 31
                remainder[i] = (remainder[i] << 1) | carry
                carry = next
            }
            if carry != 0 { remainder.append(carry) }
            if compareMagnitudes(remainder, b) >= 0 {
                remainder = subtractMagnitudes(remainder, b)
                while let last = remainder.last, last == 0 { remainder.removeLast() }
                quotient[bit / 32] |= 1 << UInt32(bit % 32)
            }
        }
        return (quotient, remainder)
    }

    /// A result, or ``LiquidError/Reason/numberOutOfRange(_:)`` past ``maxBits``.
    private static func checked(_ value: BigInt) throws -> BigInt {
        guard value.bitWidth <= maxBits else {
            throw LiquidError.Reason.numberOutOfRange("an integer of more than \(maxBits) bits")
        }
        return value
    }

    public static prefix func - (x: BigInt) -> BigInt { BigInt(negative: !x.isNegative, limbs: x.limbs) }

    var magnitude: BigInt { BigInt(negative: false, limbs: limbs) }

    /// `a + b`.
    public static func adding(_ a: BigInt, _ b: BigInt) throws -> BigInt {
        if a.isNegative == b.isNegative { return try checked(BigInt(negative: a.isNegative, limbs: addMagnitudes(a.limbs, b.limbs))) }
        let c = compareMagnitudes(a.limbs, b.limbs)
        if c == 0 { return BigInt(0) }
        return c > 0 ? BigInt(negative: a.isNegative, limbs: subtractMagnitudes(a.limbs, b.limbs))
            : BigInt(negative: b.isNegative, limbs: subtractMagnitudes(b.limbs, a.limbs))
    }

    /// `a - b`.
    public static func subtracting(_ a: BigInt, _ b: BigInt) throws -> BigInt { try adding(a, -b) }

    /// `a * b`.
    public static func multiplying(_ a: BigInt, _ b: BigInt) throws -> BigInt {
        guard a.bitWidth + b.bitWidth <= maxBits + 1 else {
            throw LiquidError.Reason.numberOutOfRange("an integer of more than \(maxBits) bits")
        }
        return try checked(BigInt(negative: a.isNegative != b.isNegative, limbs: multiplyMagnitudes(a.limbs, b.limbs)))
    }

    /// Ruby's `Integer#divmod`: the quotient floored, the remainder with the divisor's sign.
    /// `nil` when `b` is zero.
    public static func flooredDivision(_ a: BigInt, _ b: BigInt) -> (quotient: BigInt, remainder: BigInt)? {
        if b.isZero { return nil }
        let (q, r) = divideMagnitudes(a.limbs, b.limbs)
        var quotient = BigInt(negative: a.isNegative != b.isNegative, limbs: q)
        var remainder = BigInt(negative: a.isNegative, limbs: r)
        if !remainder.isZero && remainder.isNegative != b.isNegative {
            // (The results are no larger than the operands: these cannot fail.)
            quotient = (try? subtracting(quotient, BigInt(1))) ?? quotient
            remainder = (try? adding(remainder, b)) ?? remainder
        }
        return (quotient, remainder)
    }

    public static func < (a: BigInt, b: BigInt) -> Bool {
        if a.isNegative != b.isNegative { return a.isNegative }
        let c = compareMagnitudes(a.limbs, b.limbs)
        return a.isNegative ? c > 0 : c < 0
    }

    /// -1, 0 or 1 as `self` is below, equal to or above the double `d` (exactly, as Ruby
    /// compares an Integer with a Float); `nil` for NaN.
    func compare(toDouble d: Double) -> Int? {
        if d.isNaN { return nil }
        if d == .infinity { return -1 }
        if d == -.infinity { return 1 }
        let whole = d.rounded(.towardZero)
        guard let other = BigInt(exactly: whole) else { return nil }
        if self < other { return -1 }
        if other < self { return 1 }
        // Equal to the whole part: the fraction decides.
        if d > whole { return -1 }
        if d < whole { return 1 }
        return 0
    }

    /// The integer a whole double holds exactly; `nil` for fractions, Infinity and NaN.
    public init?(exactly d: Double) {
        guard d.isFinite, d.rounded(.towardZero) == d else { return nil }
        if let i = Int(exactly: d) { self.init(i); return }
        // |d| >= 2^63: significand × 2^exponent.
        let significand = d.significandBitPattern | (1 << 52)
        let shift = Int(d.exponent) - 52
        var limbs: [UInt32] = [UInt32(truncatingIfNeeded: significand), UInt32(truncatingIfNeeded: significand >> 32)]
        // Shift left by `shift` bits.
        let wordShift = shift / 32, bitShift = UInt32(shift % 32)
        if bitShift > 0 {
            var carry: UInt32 = 0
            for i in limbs.indices {
                let next = limbs[i] >> (32 - bitShift)
                limbs[i] = (limbs[i] << bitShift) | carry
                carry = next
            }
            if carry != 0 { limbs.append(carry) }
        }
        limbs.insert(contentsOf: repeatElement(0, count: wordShift), at: 0)
        self.init(negative: d < 0, limbs: limbs)
    }
}

extension LiquidValue {
    /// An integer value: `.int` when it fits in 64 bits, `.bigInt` otherwise.
    public static func normalizing(_ value: BigInt) -> LiquidValue {
        if let i = value.exactInt { return .int(i) }
        return .bigInt(value)
    }
}

extension BigInt {
    /// Ruby's `Integer#size` of a bignum: the bytes its magnitude takes.
    var rubySize: Int { (bitWidth + 7) / 8 }
}
