/// A parsed template: immutable and `Sendable`, so one template renders from many threads
/// at once. Parse with ``LiquidEnvironment/parse(_:name:)``.
public struct LiquidTemplate: Sendable {
    /// Everything a template holds, shared by its copies (copying a template costs one
    /// reference count).
    final class Storage: Sendable {
        let root: Body
        let source: String
        let name: String?
        let environment: LiquidEnvironment
        let warnings: [LiquidError]
        let filterProblems: [LiquidError]
        /// Resource limits, copied out of the environment for the render loop.
        let limits: LiquidLimits

        init(root: Body, source: String, name: String?, environment: LiquidEnvironment, warnings: [LiquidError], filterProblems: [LiquidError]) {
            self.root = root
            self.source = source
            self.name = name
            self.environment = environment
            self.warnings = warnings
            self.filterProblems = filterProblems
            self.limits = environment.limits
        }
    }

    let storage: Storage

    init(root: Body, source: String, name: String?, environment: LiquidEnvironment, warnings: [LiquidError], filterProblems: [LiquidError] = []) {
        storage = Storage(root: root, source: source, name: name, environment: environment, warnings: warnings, filterProblems: filterProblems)
    }

    var root: Body { storage.root }
    /// The source it was parsed from.
    public var source: String { storage.source }
    /// Its name, used in error messages.
    public var name: String? { storage.name }
    /// The environment it was parsed with; renders use its filters, file system and limits.
    public var environment: LiquidEnvironment { storage.environment }
    /// Warnings from parsing: markup ``LiquidErrorMode/warn`` mode read laxly, and what tags
    /// noted (``LiquidParser/warn(_:at:)``).
    public var warnings: [LiquidError] { storage.warnings }
    /// Filters the template uses that its environment does not have (they pass their input
    /// through unless ``RenderOptions/strictFilters`` is set).
    public var unknownFilters: [String] {
        Array(Set(unknownFilterUses.compactMap { use -> String? in
            if case .unknownFilter(let name) = use.reason { return name }
            return nil
        })).sorted()
    }
    /// Filter calls that lax parsing accepted but that will not work as written, each at its
    /// line and column: a filter the environment does not have (reason
    /// ``LiquidError/Reason/unknownFilter(_:)``: the render passes the value through) or the wrong
    /// number of arguments (``LiquidError/Reason/filterArity(filter:expected:got:)``: the render
    /// fails). Strict parsing throws these instead.
    public var filterProblems: [LiquidError] { storage.filterProblems }
    /// The uses of filters the environment does not have, from ``filterProblems``.
    public var unknownFilterUses: [LiquidError] {
        storage.filterProblems.filter { if case .unknownFilter = $0.reason { return true } else { return false } }
    }

    /// The top-level nodes.
    public var body: Body { root }
}

extension LiquidTemplate {
    /// Renders with `data` (an object, or a drop) and returns the output.
    ///
    /// Throws a ``LiquidError`` with the template name, line and column of the failing node.
    public func render(_ data: LiquidValue = [:], options: RenderOptions = RenderOptions()) throws -> String {
        var context = RenderContextCache.take(template: storage, options: options, data: data)
        defer { RenderContextCache.give(&context) }
        try render(into: context)
        return context.takeOutput()
    }

    /// Runs `body` with a ``RenderSession`` over `data` and `options`, for rendering several
    /// templates (the fields of one message) against the same data.
    ///
    /// Each ``RenderSession/render(_:)`` is a separate render, exactly as
    /// ``render(_:options:)`` would make it: variables, counters and cycles of one template are
    /// not seen by the next. The session only saves setting up the same data and options again.
    ///
    /// `sessionInfo` is what a dialect's tags and expressions read in ``RenderContext/sessionInfo``
    /// for every render of the session.
    public static func withSession<R>(_ data: LiquidValue, options: RenderOptions = RenderOptions(), sessionInfo: [String: any Sendable] = [:],
                                      _ body: (RenderSession) throws -> R) rethrows -> R {
        var context = RenderContextCache.take(template: nil, options: options, data: data)
        defer { RenderContextCache.give(&context) }
        if !sessionInfo.isEmpty { context.sessionInfo = sessionInfo }
        let box = SessionData(data)
        return try withExtendedLifetime(box) {
            context.sessionData = .passUnretained(box)
            defer { context.sessionData = nil }
            return try body(RenderSession(context: context))
        }
    }

    /// Renders with a ready context (used by partials and hosts that pre-fill variables).
    public func render(into context: RenderContext) throws {
        do {
            try storage.root.render(context)
        } catch var error as LiquidError {
            error.locate(in: source, name: name)
            throw error
        } catch let reason as LiquidError.Reason {
            var error = LiquidError(reason)
            error.templateName = name
            throw error
        }
    }

    /// Makes a render context for `data`, to fill before ``render(into:)``.
    public func makeContext(_ data: LiquidValue = [:], options: RenderOptions = RenderOptions()) -> RenderContext {
        let context = RenderContext(template: storage, options: options, data: data)
        context.keepAlive = storage
        return context
    }
}

/// Renders several templates against the same data and options; see
/// ``LiquidTemplate/withSession(_:options:sessionInfo:_:)``. Use it only inside that call's closure.
public struct RenderSession {
    @usableFromInline let context: RenderContext

    /// Renders `template` (a separate render: nothing of the previous one remains) and
    /// returns its output. Throws ``LiquidError`` as ``LiquidTemplate/render(_:options:)`` does.
    public func render(_ template: LiquidTemplate) throws -> String {
        context.begin(template.storage)
        try template.render(into: context)
        return context.takeOutput()
    }

    /// Renders `template` as ``render(_:)`` does and appends its output, as UTF-8, to
    /// `output` (no `String` is made: for callers that write the text on, such as a payload).
    public func render(_ template: LiquidTemplate, appendingTo output: inout [UInt8]) throws {
        context.begin(template.storage)
        try template.render(into: context)
        context.takeOutput(appendingTo: &output)
    }

    /// The warnings of the last render (see ``RenderContext/warn(_:at:)``): a Connected
    /// Content call that failed, an unknown time zone.
    public var warnings: [LiquidError] { context.warnings }
    /// What the last render's tags left in ``RenderContext/registers`` (for hosts that collect
    /// what a dialect's tags record, such as Braze's message extras).
    public var registers: [String: any Sendable] { context.registers }
    /// Whether the last render's tags left anything in ``registers`` (read without copying them).
    @inlinable public var hasRegisters: Bool { !context.registers.isEmpty }
    /// The register `key` the last render left, if any.
    public func register(_ key: String) -> (any Sendable)? { context.registers[key] }
    /// Whether the last render warned (no array copied: for loops over millions of renders).
    @inlinable public var hasWarnings: Bool { !context.warnings.isEmpty }
}
