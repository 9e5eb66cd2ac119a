/// An insertion-ordered string-keyed map: the value of a Liquid object (a Ruby hash).
///
/// Copies share storage until one of them is changed (copy on write), so passing objects
/// around a render costs one reference count.
public struct LiquidObject: @unchecked Sendable, Hashable, Sequence {
    final class Storage {
        var keys: [String]
        var values: [LiquidValue]
        /// Built once there are more than `linearLimit` keys.
        var index: [String: Int]

        init(keys: [String] = [], values: [LiquidValue] = [], index: [String: Int] = [:]) {
            self.keys = keys
            self.values = values
            self.index = index
        }

        func copy() -> Storage { Storage(keys: keys, values: values, index: index) }

        @inline(__always)
        func position(of key: String) -> Int? {
            if keys.count <= LiquidObject.linearLimit {
                var i = 0
                let n = keys.count
                while i < n {
                    if keys[i] == key { return i }
                    i += 1
                }
                return nil
            }
            return index[key]
        }

        func rebuildIndex() {
            index = [:]
            guard keys.count > LiquidObject.linearLimit else { return }
            index.reserveCapacity(keys.count)
            for (i, k) in keys.enumerated() { index[k] = i }
        }
    }

    static let linearLimit = 32
    var storage: Storage

    /// An empty object.
    public init() { storage = Storage() }

    /// An object from pairs; a repeated key keeps its first position and last value.
    public init(_ pairs: [(String, LiquidValue)]) {
        storage = Storage()
        storage.keys.reserveCapacity(pairs.count)
        storage.values.reserveCapacity(pairs.count)
        for (k, v) in pairs { self[k] = v }
    }

    /// Keys in insertion order.
    public var keys: [String] { storage.keys }
    /// Values, parallel to ``keys``.
    public var values: [LiquidValue] { storage.values }
    /// The number of entries.
    public var count: Int { storage.keys.count }
    /// `true` when there are no entries.
    public var isEmpty: Bool { storage.keys.isEmpty }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The value for `key`; assigning `nil` removes the entry.
    public subscript(key: String) -> LiquidValue? {
        @inline(__always) get {
            guard let i = storage.position(of: key) else { return nil }
            return storage.values[i]
        }
        set {
            makeUnique()
            if let i = storage.position(of: key) {
                if let newValue {
                    storage.values[i] = newValue
                } else {
                    storage.keys.remove(at: i)
                    storage.values.remove(at: i)
                    storage.rebuildIndex()
                }
            } else if let newValue {
                storage.keys.append(key)
                storage.values.append(newValue)
                let n = storage.keys.count
                if n == LiquidObject.linearLimit + 1 { storage.rebuildIndex() } else if n > LiquidObject.linearLimit { storage.index[key] = n - 1 }
            }
        }
    }

    /// Iterates `(key, value)` pairs in insertion order.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: LiquidValue)> {
        var i = 0
        let keys = storage.keys, values = storage.values
        return AnyIterator {
            guard i < keys.count else { return nil }
            defer { i += 1 }
            return (key: keys[i], value: values[i])
        }
    }

    public static func == (lhs: LiquidObject, rhs: LiquidObject) -> Bool {
        if lhs.storage === rhs.storage { return true }
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
