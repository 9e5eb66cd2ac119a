/// A lazily computed object: its properties are produced when a template reads them.
///
/// Drops let a host expose large or expensive data (a user profile, a product catalogue)
/// without converting all of it into ``LiquidValue`` up front. Implementations must be
/// thread-safe: one drop may be read by several renders at once.
public protocol LiquidDrop: AnyObject, Sendable {
    /// The value of `key`, or `nil` when the drop has no such property.
    func liquidProperty(_ key: String) -> LiquidValue?
    /// ``liquidProperty(_:)-(String)`` for a key whose fingerprint is known; drops with many
    /// reads may compare fingerprints instead of names. The default calls the String form.
    func liquidProperty(_ key: PropertyKey) -> LiquidValue?
    /// The value this drop stands for when it is rendered, compared or filtered.
    /// The default is `nil` (renders as the empty string).
    var liquidSelf: LiquidValue { get }
}

extension LiquidDrop {
    public var liquidSelf: LiquidValue { .nil }
    public func liquidProperty(_ key: PropertyKey) -> LiquidValue? { liquidProperty(key.name) }
}

/// Wraps a ``LiquidDrop`` so that ``LiquidValue`` stays `Hashable`: equality is identity.
public struct LiquidDropBox: Sendable, Hashable {
    /// The drop.
    public let drop: any LiquidDrop
    /// Wraps `drop`.
    public init(_ drop: any LiquidDrop) { self.drop = drop }
    public static func == (lhs: LiquidDropBox, rhs: LiquidDropBox) -> Bool { lhs.drop === rhs.drop }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(drop)) }
}

/// The reference's method literals, `blank` and `empty`: in a comparison they ask `blank?` or
/// `empty?` of the other side; as values they are the empty string.
enum MethodLiteral { case blank, empty }

/// `self` (Liquid 5.13's `SelfDrop`): the variables of the scope it was read in, looked up
/// through that scope's chain (loop variables, assigns, counters, render data) when a property
/// is read, so it sees what is assigned later. A `{% render %}` partial has its own scope: a
/// `self` passed into one still reads the scope it came from. It has no size, first or last
/// of its own, and its text is Ruby's class name, `Liquid::SelfDrop`.
final class SelfDrop: LiquidDrop, @unchecked Sendable {
    /// The render it belongs to (weak: a value never outlives its render, but a drop must
    /// not keep one alive), and which of that render's scopes.
    private weak var context: RenderContext?
    let frame: Int

    init(context: RenderContext, frame: Int) {
        self.context = context
        self.frame = frame
    }

    func liquidProperty(_ key: String) -> LiquidValue? { liquidProperty(PropertyKey(key)) }

    /// A missing variable is `nil` here (never the class name's `size` or `first`).
    func liquidProperty(_ key: PropertyKey) -> LiquidValue? {
        context?.variable(key, inFrame: frame) ?? .nil
    }

    var liquidSelf: LiquidValue { .string("Liquid::SelfDrop") }
}
