import CStackBounds

/// How deep the current thread's stack may go before parsing or rendering stops with
/// ``LiquidLimit/renderDepth(_:)`` (or ``LiquidLimit/nestingDepth(_:)`` while parsing) instead
/// of overflowing it.
///
/// The depth limits bound recursion by count, but a frame's size depends on the build (a debug
/// build's frames are several times larger) and a thread's stack on who made it (512 KB for a
/// secondary thread on Apple platforms, 8 MB for a Linux one): this guard bounds it by bytes.
/// It keeps ``reserve`` bytes free for the work that runs below the last check (a filter, a
/// JSON value nested up to ``JSONValueParser/maxDepth``).
enum StackGuard {
    /// Bytes left free at the end of the stack.
    static let reserve: UInt = 128 << 10

    /// The lowest address this thread's stack may reach before a check fails, found once per
    /// thread (0 when the thread's stack cannot be found: then no check fails).
    static var limit: UInt {
        if let bounds = slot.current { return bounds.limit }
        let bounds = Bounds(limit: findLimit())
        slot.put(bounds)
        return bounds.limit
    }

    /// `true` when the stack has grown past ``limit`` (the caller then stops with an error).
    @inline(__always)
    static func isExhausted(limit: UInt) -> Bool { currentAddress() < limit }

    /// ``isExhausted(limit:)`` with this thread's limit (looked up: for code without a render
    /// context, such as a parse).
    static var isExhausted: Bool { currentAddress() < limit }

    /// An address in the current frame (the frame's own: a local's address may be on the heap
    /// under AddressSanitizer).
    @inline(__always)
    static func currentAddress() -> UInt { UInt(pl_stack_address()) }

    private final class Bounds {
        let limit: UInt
        init(limit: UInt) { self.limit = limit }
    }

    private static let slot = ThreadSlot<Bounds>()

    /// The stack's low end plus the reserve (stacks grow down on every platform Swift runs on).
    private static func findLimit() -> UInt {
        var size = 0
        let low = UInt(pl_stack_low(&size))
        guard low != 0 else { return 0 }
        // A stack smaller than twice the reserve keeps half of itself.
        return low + min(reserve, UInt(size) / 2)
    }
}
