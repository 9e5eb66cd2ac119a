/// An insertion-ordered string-keyed map: the value of a Liquid object (a Ruby hash).
public struct LiquidObject: Sendable, Hashable, Sequence {
    /// Keys in insertion order.
    public private(set) var keys: [String] = []
    /// Values, parallel to ``keys``.
    public private(set) var values: [LiquidValue] = []
    private var index: [String: Int] = [:]

    /// An empty object.
    public init() {}

    /// An object from pairs; a repeated key keeps its first position and last value.
    public init(_ pairs: [(String, LiquidValue)]) {
        keys.reserveCapacity(pairs.count)
        values.reserveCapacity(pairs.count)
        for (k, v) in pairs { self[k] = v }
    }

    /// The number of entries.
    public var count: Int { keys.count }
    /// `true` when there are no entries.
    public var isEmpty: Bool { keys.isEmpty }

    /// The value for `key`; assigning `nil` removes the entry.
    public subscript(key: String) -> LiquidValue? {
        get {
            if keys.count <= 8 {
                for i in 0..<keys.count where keys[i] == key { return values[i] }
                return nil
            }
            guard let i = index[key] else { return nil }
            return values[i]
        }
        set {
            if let i = position(of: key) {
                if let newValue { values[i] = newValue } else { remove(at: i) }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
                if keys.count > 8 {
                    if index.count == keys.count - 1 { index[key] = keys.count - 1 } else { rebuildIndex() }
                }
            }
        }
    }

    private func position(of key: String) -> Int? {
        if keys.count <= 8 {
            for i in 0..<keys.count where keys[i] == key { return i }
            return nil
        }
        return index[key]
    }

    private mutating func remove(at i: Int) {
        keys.remove(at: i)
        values.remove(at: i)
        if keys.count > 8 { rebuildIndex() } else { index = [:] }
    }

    private mutating func rebuildIndex() {
        index = [:]
        index.reserveCapacity(keys.count)
        for (i, k) in keys.enumerated() { index[k] = i }
    }

    /// Iterates `(key, value)` pairs in insertion order.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: LiquidValue)> {
        var i = 0
        let keys = self.keys, values = self.values
        return AnyIterator {
            guard i < keys.count else { return nil }
            defer { i += 1 }
            return (key: keys[i], value: values[i])
        }
    }

    public static func == (lhs: LiquidObject, rhs: LiquidObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (k, v) in zip(lhs.keys, lhs.values) where rhs[k] != v { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for k in keys.sorted() { hasher.combine(k); hasher.combine(self[k]) }
    }
}

extension LiquidObject: ExpressibleByDictionaryLiteral {
    /// An object literal; key order is kept.
    public init(dictionaryLiteral elements: (String, LiquidValue)...) { self.init(elements) }
}
