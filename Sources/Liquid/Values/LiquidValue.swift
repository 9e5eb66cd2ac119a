/// A value that a Liquid template reads, computes or renders.
///
/// Integers and floating-point numbers stay apart, as in the Ruby reference: integer
/// `divided_by` floors, float division does not. Objects keep their insertion order.
public enum LiquidValue: Sendable, Hashable {
    /// Ruby's `nil`: renders as the empty string, is falsy.
    case `nil`
    /// `true` or `false`.
    case bool(Bool)
    /// A 64-bit integer.
    case int(Int)
    /// An integer beyond 64 bits (Ruby's bignums), from render data, a literal or arithmetic;
    /// never one that fits in `.int` (``normalizing(_:)`` chooses).
    case bigInt(BigInt)
    /// A double-precision float, printed the way Ruby's `Float#to_s` prints it.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([LiquidValue])
    /// An insertion-ordered object (Ruby hash).
    case object(LiquidObject)
    /// An inclusive integer range, `(1..3)`.
    case range(Int, Int)
    /// A lazily computed object.
    case drop(LiquidDropBox)

    /// Wraps a drop.
    public static func drop(_ drop: any LiquidDrop) -> LiquidValue { .drop(LiquidDropBox(drop)) }
}

extension LiquidValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil`.
    public init(nilLiteral: ()) { self = .nil }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A float literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal.
    public init(arrayLiteral elements: LiquidValue...) { self = .array(elements) }
    /// An object literal; key order is kept.
    public init(dictionaryLiteral elements: (String, LiquidValue)...) {
        var object = LiquidObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

/// Types that convert into a ``LiquidValue``.
public protocol LiquidValueConvertible {
    /// The Liquid form of this value.
    var liquidValue: LiquidValue { get }
}

extension String: LiquidValueConvertible { public var liquidValue: LiquidValue { .string(self) } }
extension Int: LiquidValueConvertible { public var liquidValue: LiquidValue { .int(self) } }
extension Double: LiquidValueConvertible { public var liquidValue: LiquidValue { .double(self) } }
extension Bool: LiquidValueConvertible { public var liquidValue: LiquidValue { .bool(self) } }
extension LiquidValue: LiquidValueConvertible { public var liquidValue: LiquidValue { self } }
extension Array: LiquidValueConvertible where Element: LiquidValueConvertible {
    public var liquidValue: LiquidValue { .array(map(\.liquidValue)) }
}
extension Optional: LiquidValueConvertible where Wrapped: LiquidValueConvertible {
    public var liquidValue: LiquidValue { self?.liquidValue ?? .nil }
}

extension LiquidValue {
    /// The string inside `.string`, or `nil`.
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The elements of `.array`, or `nil`.
    public var arrayValue: [LiquidValue]? { if case .array(let a) = self { return a } else { return nil } }
    /// `true` for `.nil`.
    public var isNil: Bool { if case .nil = self { return true } else { return false } }
}
