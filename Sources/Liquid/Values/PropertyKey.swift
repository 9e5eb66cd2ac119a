/// A property or variable name with a precomputed fingerprint, so that looking it up in an
/// object compares one integer per key instead of the key's bytes. Templates compute their
/// names' fingerprints once, at parse time.
public struct PropertyKey: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name.
    public let name: String
    /// FNV-1a of the name's UTF-8 bytes.
    let fingerprint: UInt64

    /// A key for `name`.
    public init(_ name: String) {
        self.name = name
        self.fingerprint = PropertyKey.fingerprint(of: name)
    }

    /// A key whose fingerprint is already known.
    init(_ name: String, fingerprint: UInt64) {
        self.name = name
        self.fingerprint = fingerprint
    }

    /// `self`: the name of the current scope (Liquid 5.13), when no variable has it.
    static let selfKey = PropertyKey("self")

    /// A key literal.
    public init(stringLiteral value: String) { self.init(value) }

    public var description: String { name }

    public static func == (a: PropertyKey, b: PropertyKey) -> Bool { a.fingerprint == b.fingerprint && a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }

    /// (Over the string's contiguous bytes: iterating a `String.UTF8View` byte by byte costs
    /// several times as much, and keys are fingerprinted at every parse.)
    static func fingerprint(of name: String) -> UInt64 {
        if let hash = name.utf8.withContiguousStorageIfAvailable({ fingerprint(of: $0) }) { return hash }
        return fingerprint(of: name.utf8)
    }

    /// FNV-1a of UTF-8 bytes.
    @inline(__always)
    static func fingerprint<Bytes: Sequence<UInt8>>(of bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            hash ^= UInt64(b)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
