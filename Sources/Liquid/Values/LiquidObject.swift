/// An insertion-ordered string-keyed map: the value of a Liquid object (a Ruby hash).
///
/// Entries (fingerprint, key, value) live in one contiguous buffer, shared by copies until
/// one is changed, so a lookup touches one allocation; objects of more than
/// `linearLimit` keys add a hash index.
public struct LiquidObject: @unchecked Sendable, Hashable, Sequence {
    /// Key and value first, then the low half of the key's fingerprint: 40 bytes an entry
    /// rather than 48, so a scan touches fewer cache lines.
    struct Entry {
        let key: String
        var value: LiquidValue
        let fingerprint: UInt32

        init(fingerprint: UInt64, key: consuming String, value: consuming LiquidValue) {
            self.key = key
            self.value = value
            self.fingerprint = UInt32(truncatingIfNeeded: fingerprint)
        }
    }

    final class Index {
        var positions: [String: Int]
        init(_ positions: [String: Int]) { self.positions = positions }
    }

    static let linearLimit = 32
    var entries: ContiguousArray<Entry>
    var index: Index?

    /// An empty object.
    public init() { entries = [] }

    /// An object from pairs; a repeated key keeps its first position and last value.
    public init(_ pairs: [(String, LiquidValue)]) {
        entries = []
        entries.reserveCapacity(pairs.count)
        for (k, v) in pairs { self[k] = v }
    }

    /// Keys in insertion order.
    public var keys: [String] { entries.map(\.key) }
    /// Values, parallel to ``keys``.
    public var values: [LiquidValue] { entries.map(\.value) }
    /// The number of entries.
    public var count: Int { entries.count }
    /// `true` when there are no entries.
    public var isEmpty: Bool { entries.isEmpty }

    @inline(__always)
    func position(of key: PropertyKey) -> Int? {
        if index != nil { return indexedPosition(of: key) }
        return entries.withUnsafeBufferPointer { buf in
            let f = UInt32(truncatingIfNeeded: key.fingerprint)
            var i = 0
            while i < buf.count {
                if buf[i].fingerprint == f && buf[i].key == key.name { return i }
                i += 1
            }
            return nil
        }
    }

    @inline(never)
    func indexedPosition(of key: PropertyKey) -> Int? { index!.positions[key.name] }

    /// The value for a key with a precomputed fingerprint.
    @inline(__always)
    public subscript(key: PropertyKey) -> LiquidValue? {
        guard let i = position(of: key) else { return nil }
        return entries[i].value
    }

    /// The value for `key`; assigning `nil` removes the entry.
    public subscript(key: String) -> LiquidValue? {
        get { self[PropertyKey(key)] }
        set {
            let k = PropertyKey(key)
            if let i = position(of: k) {
                if let newValue {
                    entries[i].value = newValue
                } else {
                    entries.remove(at: i)
                    rebuildIndex()
                }
            } else if let newValue {
                append(k, newValue)
            }
        }
    }

    /// Sets `key` (as ``subscript(_:)-(String)`` does, with the fingerprint known).
    mutating func set(_ key: consuming PropertyKey, _ value: consuming LiquidValue) {
        if let i = position(of: key) {
            entries[i].value = value
        } else {
            append(key, value)
        }
    }

    /// Moves the entries into storage of their exact size, allocated now.
    mutating func compact() {
        if entries.capacity > entries.count { entries = ContiguousArray(entries[...]) }
    }

    /// Adds an entry for a key not in the object yet.
    private mutating func append(_ key: consuming PropertyKey, _ value: consuming LiquidValue) {
        let fingerprint = key.fingerprint
        entries.append(Entry(fingerprint: fingerprint, key: key.name, value: value))
        if entries.count == LiquidObject.linearLimit + 1 {
            rebuildIndex()
        } else if entries.count > LiquidObject.linearLimit {
            if !isKnownUniquelyReferenced(&index!) { index = Index(index!.positions) }
            index!.positions[key.name] = entries.count - 1
        }
    }

    private mutating func rebuildIndex() {
        guard entries.count > LiquidObject.linearLimit else { index = nil; return }
        var positions: [String: Int] = [:]
        positions.reserveCapacity(entries.count)
        for (i, e) in entries.enumerated() { positions[e.key] = i }
        index = Index(positions)
    }

    /// The first entry, if any.
    public var first: (key: String, value: LiquidValue)? { entries.first.map { ($0.key, $0.value) } }

    /// Iterates `(key, value)` pairs in insertion order.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: LiquidValue)> {
        var i = 0
        let entries = self.entries
        return AnyIterator {
            guard i < entries.count else { return nil }
            defer { i += 1 }
            return (key: entries[i].key, value: entries[i].value)
        }
    }

    public static func == (lhs: LiquidObject, rhs: LiquidObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for e in lhs.entries where rhs[PropertyKey(e.key)] != e.value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for e in entries.sorted(by: { $0.key < $1.key }) { hasher.combine(e.key); hasher.combine(e.value) }
    }
}

extension LiquidObject: ExpressibleByDictionaryLiteral {
    /// An object literal; key order is kept.
    public init(dictionaryLiteral elements: (String, LiquidValue)...) { self.init(elements) }
}
