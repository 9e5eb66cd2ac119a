#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Finds a string in others by its UTF-8 bytes, in time linear in the text searched, however
/// the two were made (a naive search takes quadratic time on `aaa…ab` in `aaa…a`: minutes for
/// a megabyte, from data no one checked).
///
/// UTF-8 is self-synchronizing, so a byte match of a whole string is a match of its Unicode
/// scalars: the code-point semantics of Ruby's `include?`, `sub`, `gsub` and `split`.
struct ByteFinder {
    /// The needle's bytes.
    let needle: [UInt8]
    /// Knuth-Morris-Pratt's failure function, for needles long enough that checking each
    /// candidate position byte by byte could cost more than a constant.
    private let failure: [Int]
    /// Needles up to this long are checked directly at each position where their first byte is.
    private static let shortNeedle = 16

    init(_ needle: String) {
        self.needle = Array(needle.utf8)
        guard self.needle.count > Self.shortNeedle else {
            failure = []
            return
        }
        var failure = [Int](repeating: 0, count: self.needle.count)
        var k = 0
        for i in 1..<self.needle.count {
            while k > 0 && self.needle[i] != self.needle[k] { k = failure[k - 1] }
            if self.needle[i] == self.needle[k] { k += 1 }
            failure[i] = k
        }
        self.failure = failure
    }

    /// The offset of the first occurrence in `text` at or after `start`, or `nil`. An empty
    /// needle is found at `start`.
    func next(in text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let m = needle.count
        guard m > 0 else { return start <= text.count ? start : nil }
        guard text.count - start >= m else { return nil }
        return needle.withUnsafeBufferPointer { p -> Int? in
            if failure.isEmpty {
                var i = start
                let last = text.count - m
                while i <= last {
                    guard let hit = memchr(text.baseAddress! + i, Int32(p[0]), last - i + 1) else { return nil }
                    i = text.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(text.baseAddress! + i, p.baseAddress!, m) == 0 { return i }
                    i += 1
                }
                return nil
            }
            return failure.withUnsafeBufferPointer { f -> Int? in
                var k = 0
                var i = start
                while i < text.count {
                    let b = text[i]
                    while k > 0 && b != p[k] { k = f[k - 1] }
                    if b == p[k] { k += 1 }
                    if k == m { return i - m + 1 }
                    i += 1
                }
                return nil
            }
        }
    }

    /// The offsets of the non-overlapping occurrences in `text`, left to right (as Ruby's
    /// `gsub` and `split` find them).
    func all(in text: UnsafeBufferPointer<UInt8>) -> [Int] {
        var found: [Int] = []
        var from = 0
        while let at = next(in: text, from: from) {
            found.append(at)
            from = at + max(needle.count, 1)
            if from > text.count { break }
        }
        return found
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes (a native string's own storage when it has it).
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let r = try utf8.withContiguousStorageIfAvailable(body) { return r }
        var copy = self
        return try copy.withUTF8(body)
    }

    /// `true` when `other` occurs in this string (byte for byte; an empty string always does).
    func containsBytes(of other: String) -> Bool {
        if other.isEmpty { return true }
        let finder = ByteFinder(other)
        return withBytes { finder.next(in: $0, from: 0) != nil }
    }
}
