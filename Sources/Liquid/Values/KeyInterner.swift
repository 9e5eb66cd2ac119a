#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A per-thread table of recently seen object keys (see ``JSONValueParser``) and template names
/// (see ``MarkupStream``): the same key in thousands of documents becomes one string, so parsing
/// allocates nothing for it and a lookup compares against memory already in cache.
final class KeyInterner {
    private static let size = 512
    private static let slot = ThreadSlot<KeyInterner>()
    // Raw storage (the table lives as long as its thread): reading it retains nothing.
    private let fingerprints: UnsafeMutablePointer<UInt64>
    private let keys: UnsafeMutablePointer<String?>

    private init() {
        fingerprints = .allocate(capacity: Self.size)
        fingerprints.initialize(repeating: 0, count: Self.size)
        keys = .allocate(capacity: Self.size)
        keys.initialize(repeating: nil, count: Self.size)
    }

    deinit {
        fingerprints.deallocate()
        keys.deinitialize(count: Self.size)
        keys.deallocate()
    }

    /// This thread's interner.
    static var current: KeyInterner {
        if let interner = slot.current { return interner }
        let interner = KeyInterner()
        slot.put(interner)
        return interner
    }

    /// Names longer than this are not kept (a table entry would hold a long string alive).
    private static let longest = 64

    /// The key for the UTF-8 `bytes` of an object key or a template's name.
    func key(_ bytes: UnsafeBufferPointer<UInt8>) -> PropertyKey {
        let fingerprint = PropertyKey.fingerprint(of: bytes)
        if bytes.count <= 15 || bytes.count > Self.longest {
            // Small strings live inline: nothing to share; long ones are not kept.
            return PropertyKey(String(decoding: bytes, as: UTF8.self), fingerprint: fingerprint)
        }
        let slot = Int(truncatingIfNeeded: fingerprint ^ (fingerprint >> 29)) & (Self.size - 1)
        if fingerprints[slot] == fingerprint, let known = keys[slot] {
            let same = known.utf8.withContiguousStorageIfAvailable {
                $0.count == bytes.count && memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0
            } ?? false
            if same { return PropertyKey(known, fingerprint: fingerprint) }
        }
        let string = String(decoding: bytes, as: UTF8.self)
        fingerprints[slot] = fingerprint
        keys[slot] = string
        return PropertyKey(string, fingerprint: fingerprint)
    }
}
