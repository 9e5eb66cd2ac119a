import Liquid

/// The ``LiquidError`` that `body` throws, or `nil` (also for other errors).
public func liquidError(_ body: () throws -> Any) -> LiquidError? {
    do { _ = try body(); return nil } catch let e as LiquidError { return e } catch { return nil }
}
