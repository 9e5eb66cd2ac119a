import Foundation

/// Options of one render.
public struct RenderOptions: Sendable {
    /// UTC, made once (looking a zone up by name takes a lock).
    public static let utc = TimeZone(identifier: "UTC")!

    /// An undefined variable (or a missing key of an object) is an error.
    public var strictVariables: Bool
    /// An unknown filter is an error (otherwise it passes its input through, as the reference does).
    public var strictFilters: Bool
    /// The time zone of the `date` filter; UTC unless set.
    public var timeZone: TimeZone
    /// What `'now'` and `'today'` mean to the `date` filter: a fixed clock makes renders reproducible.
    public var now: @Sendable () -> Date
    /// Options for a render; by default lenient, UTC and the system clock.
    public init(strictVariables: Bool = false, strictFilters: Bool = false, timeZone: TimeZone = RenderOptions.utc, now: @escaping @Sendable () -> Date = { Date() }) {
        self.strictVariables = strictVariables
        self.strictFilters = strictFilters
        self.timeZone = timeZone
        self.now = now
    }
}

/// The state of one render: variables, output buffer, counters and limits. Made fresh for
/// every call to ``LiquidTemplate/render(_:options:)``; never shared between threads.
public final class RenderContext {
    /// The template being rendered (its environment and limits). Unowned: whoever starts a
    /// render holds the template until it returns, and nothing reads this between renders.
    private(set) unowned(unsafe) var template: LiquidTemplate.Storage
    /// The environment the template was parsed with.
    public var environment: LiquidEnvironment { template.environment }
    /// Holds the template of a context made by ``LiquidTemplate/makeContext(_:options:)``,
    /// which may outlive the caller's reference.
    @exclusivity(unchecked) var keepAlive: AnyObject?
    /// The limits of the template being rendered.
    @exclusivity(unchecked) public private(set) var limits: LiquidLimits
    /// This render's options.
    @exclusivity(unchecked) public private(set) var options: RenderOptions
    /// The output so far, as UTF-8 bytes: appending is a copy of bytes, and the buffer keeps
    /// its capacity from one render to the next.
    @exclusivity(unchecked) var buffer: [UInt8] = []
    /// The output so far.
    public var output: String {
        get { String(decoding: buffer, as: UTF8.self) }
        set { buffer.removeAll(keepingCapacity: true); buffer.append(contentsOf: newValue.utf8); sole = nil }
    }
    /// When the whole output so far is one string value (`{{ user.id }}`), that string and
    /// the buffer's length after it: the output is then that string, with no new allocation.
    @exclusivity(unchecked) private var sole: String?
    @exclusivity(unchecked) private var soleLength = -1

    /// Appends a value's text (an output's value). An array or object is written piece by
    /// piece and stops at the output limit (its text can be far larger than its memory: one
    /// long string many times over).
    @inline(__always)
    func emit(_ value: borrowing LiquidValue) throws {
        switch value {
        case .string(let s) where buffer.isEmpty && s.utf8.count > 15:
            sole = s
            appendUTF8(s, to: &buffer)
            soleLength = buffer.count
        case .string(let s): appendUTF8(s, to: &buffer)
        case .int(let i): appendDecimal(i, to: &buffer)
        default:
            guard value.write(to: &buffer, limit: limits.outputBytes) else {
                throw LiquidError.Reason.limitExceeded(.outputBytes(limits.outputBytes))
            }
        }
    }

    /// Appends the output so far to `output` and empties the buffer (keeping its capacity).
    func takeOutput(appendingTo output: inout [UInt8]) {
        output.append(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
        sole = nil
    }

    /// Takes the output so far as a string and empties the buffer (keeping its capacity).
    func takeOutput() -> String {
        defer {
            buffer.removeAll(keepingCapacity: true)
            sole = nil
        }
        if let sole, soleLength == buffer.count { return sole }
        return String(decoding: buffer, as: UTF8.self)
    }
    /// Variables of enclosing `for` loops, `with` bindings and similar, innermost last.
    @exclusivity(unchecked) var locals: [(name: PropertyKey, value: LiquidValue)] = []
    /// Variables set by `assign` and `capture`.
    @exclusivity(unchecked) var globals: [PropertyKey: LiquidValue] = [:]
    /// `increment`/`decrement` counters (the reference keeps them with the render data).
    @exclusivity(unchecked) var counters: [String: LiquidValue] = [:]
    /// The data passed to the render.
    @exclusivity(unchecked) var data: LiquidValue
    /// The same data, during a ``RenderSession``: immutable, so lookups borrow it without a
    /// reference count. The session holds the box.
    @exclusivity(unchecked) var sessionData: Unmanaged<SessionData>?
    /// Set by `break`/`continue` until the enclosing loop handles it.
    @exclusivity(unchecked) public var interrupt: Interrupt?
    @exclusivity(unchecked) var steps = 0
    @exclusivity(unchecked) var cycles: [String: Int] = [:]
    /// Where each loop (by name) stopped, for `offset: continue`; a template has few loops.
    @exclusivity(unchecked) var forOffsets: [(name: String, offset: Int)] = []
    @exclusivity(unchecked) var lastIfchanged: String?
    @exclusivity(unchecked) var forStack: [ForloopDrop] = []
    /// A `forloop` drop no longer referenced, for the next loop (no allocation per loop).
    @exclusivity(unchecked) var spareForloop: ForloopDrop?
    @exclusivity(unchecked) var partialDepth = 0
    /// Which scope is current: each `{% render %}` partial gets a new one (``SelfDrop``).
    @exclusivity(unchecked) var frame = 0
    @exclusivity(unchecked) var frameCount = 0
    /// The scopes of the templates that rendered the current partial, outermost first.
    @exclusivity(unchecked) var savedScopes: [SavedScope] = []
    /// The `self` of the current scope, once read (one drop per scope, so that two reads of
    /// `self` are equal).
    @exclusivity(unchecked) var selfDrop: SelfDrop?
    /// Blocks being rendered, one inside the other, partials included (a dynamic nesting
    /// depth, limited as the template's own nesting is).
    @exclusivity(unchecked) var depth = 0
    /// What `assign` and `capture` stored so far (see ``LiquidLimits/assignScore``).
    @exclusivity(unchecked) var assignScore = 0
    /// When this render (or session) must end, in ``monotonicNanoseconds()``; set by the first
    /// time check, so that a short render never reads the clock.
    @exclusivity(unchecked) var deadline: UInt64?
    /// External requests made so far in this render or session.
    @exclusivity(unchecked) var externalRequests = 0
    /// Filter calls so far: the time limit is checked every 16 (one output can chain many
    /// filters, each working on up to ``LiquidLimits/arrayElements`` elements).
    @exclusivity(unchecked) var filterCalls = 0
    /// The source offset of the filter call being applied (the last one applied between calls;
    /// -1 before the first), for warnings a filter gives (``currentFilterOffset``).
    @exclusivity(unchecked) var filterOffset = -1
    /// This thread's ``StackGuard`` limit: a context renders on the thread that made it (the
    /// contexts of ``RenderContextCache`` are per thread).
    let stackLimit = StackGuard.limit
    @exclusivity(unchecked) var trace: [String] = []
    /// Storage for custom tags' per-render state.
    @exclusivity(unchecked) public var registers: [String: any Sendable] = [:]
    /// What a dialect's tags, filters and expressions need to know about the message being
    /// rendered that is not template data (the Braze dialect: the platform a push is rendered
    /// for): set for a whole ``RenderSession`` (``LiquidTemplate/withSession(_:options:sessionInfo:_:)``)
    /// or on a context before ``LiquidTemplate/render(into:)``. The engine never reads it.
    @exclusivity(unchecked) public var sessionInfo: [String: any Sendable] = [:]
    /// Non-fatal problems noticed while rendering (``warn(_:at:)``), each located in the
    /// template or partial it happened in when its tag gave an offset.
    @exclusivity(unchecked) public internal(set) var warnings: [LiquidError] = []
    /// The partials (and content blocks) rendering now, innermost last: warnings are located
    /// in the innermost one's source.
    @exclusivity(unchecked) var partialTemplates: [LiquidTemplate] = []

    /// Records a non-fatal problem (a request that failed, a value replaced by a default) as a
    /// warning: reason ``LiquidError/Reason/custom(_:)``, located at `offset` (a UTF-8 offset
    /// in the template or partial rendering now, as a tag's `TagToken.offset`) when given,
    /// and named after that template, with the chain of partials that led there.
    public func warn(_ message: String, at offset: Int? = nil) {
        let current = partialTemplates.last?.storage ?? template
        var warning = LiquidError(.custom(message), offset: offset)
        warning.locate(in: current.source, name: current.name)
        warning.trace = trace
        warnings.append(warning)
    }

    /// The UTF-8 offset, in the template or partial rendering now, of the filter call being
    /// applied: a filter that warns passes it to ``warn(_:at:)`` so that the warning is
    /// located at the filter (`{{ t | time_zone: 'Mars/Base' }}`). Meaningful only inside a
    /// filter's function; `nil` before any filter was applied.
    public var currentFilterOffset: Int? { filterOffset >= 0 ? filterOffset : nil }

    /// The data the render was given (the root scope, before any variable shadows its keys):
    /// for a dialect's expressions that read the render context document itself.
    public var renderData: LiquidValue { data }

    /// A loop interruption.
    public enum Interrupt: Sendable { case breakLoop, continueLoop }

    /// Makes the context fresh for another render, keeping its buffers' capacity.
    func reset(template: LiquidTemplate.Storage, options: RenderOptions, data: LiquidValue) {
        self.options = options
        self.data = data
        if !sessionInfo.isEmpty { sessionInfo = [:] }
        sessionData = nil
        deadline = nil
        externalRequests = 0
        begin(template)
    }

    /// Makes the context fresh for rendering `template` with the same data and options: no
    /// variable, counter, cycle or warning of the previous render remains.
    @inline(__always)
    func begin(_ template: LiquidTemplate.Storage) {
        self.template = template
        self.limits = template.limits
        if !buffer.isEmpty { buffer.removeAll(keepingCapacity: true) }
        sole = nil
        if !locals.isEmpty { locals.removeAll(keepingCapacity: true) }
        if !globals.isEmpty { globals.removeAll(keepingCapacity: true) }
        if !counters.isEmpty { counters.removeAll(keepingCapacity: true) }
        interrupt = nil
        steps = 0
        if !cycles.isEmpty { cycles.removeAll(keepingCapacity: true) }
        if !forOffsets.isEmpty { forOffsets.removeAll(keepingCapacity: true) }
        lastIfchanged = nil
        if !forStack.isEmpty { forStack.removeAll(keepingCapacity: true) }
        partialDepth = 0
        frame = 0
        frameCount = 0
        if !savedScopes.isEmpty { savedScopes.removeAll(keepingCapacity: true) }
        // (Tested first: assigning nil would release even when there is nothing to release.)
        if selfDrop != nil { selfDrop = nil }
        depth = 0
        assignScore = 0
        if !trace.isEmpty { trace.removeAll(keepingCapacity: true) }
        if !registers.isEmpty { registers.removeAll(keepingCapacity: true) }
        if !warnings.isEmpty { warnings.removeAll(keepingCapacity: true) }
        if !partialTemplates.isEmpty { partialTemplates.removeAll(keepingCapacity: true) }
    }

    init(template: LiquidTemplate.Storage, options: RenderOptions, data: LiquidValue) {
        self.template = template
        self.limits = template.limits
        self.options = options
        self.data = data
    }

    /// Appends text to the output.
    @inline(__always) public func write(_ text: String) { appendUTF8(text, to: &buffer) }

    /// Counts one render step and enforces the step and output limits, and every 256 steps
    /// the time limit.
    @inline(__always) func step() throws {
        steps &+= 1
        if steps > limits.renderSteps {
            throw LiquidError.Reason.limitExceeded(.renderSteps(limits.renderSteps))
        }
        if buffer.count > limits.outputBytes {
            throw LiquidError.Reason.limitExceeded(.outputBytes(limits.outputBytes))
        }
        if steps & 255 == 0 { _ = try remainingSeconds() }
    }

    /// The seconds this render (or session) has left of ``LiquidLimits/renderSeconds``; the
    /// first call starts the clock. Throws ``LiquidLimit/renderSeconds(_:)`` when none is
    /// left. A tag that waits (for the network, say) waits at most this long.
    public func remainingSeconds() throws -> Double {
        let now = monotonicNanoseconds()
        guard let deadline else {
            let budget = limits.renderSeconds
            // (A budget beyond what the clock can count is no budget.)
            deadline = budget < 1e9 ? now &+ UInt64(max(0, budget) * 1e9) : .max
            return max(0, budget)
        }
        if now >= deadline { throw LiquidError.Reason.limitExceeded(.renderSeconds(limits.renderSeconds)) }
        return Double(deadline - now) / 1e9
    }

    /// Counts one request to the outside world (a dialect's Connected Content call) against
    /// ``LiquidLimits/externalRequests`` and the time left; returns the seconds left.
    public func beginExternalRequest() throws -> Double {
        let left = try remainingSeconds()
        guard externalRequests < limits.externalRequests else {
            throw LiquidError.Reason.limitExceeded(.externalRequests(limits.externalRequests))
        }
        externalRequests += 1
        return left
    }

    /// Throws when `value` is larger than a filter's result may be (``LiquidLimits/stringBytes``,
    /// ``LiquidLimits/arrayElements``).
    @inline(__always)
    public func checkSize(_ value: borrowing LiquidValue) throws {
        switch value {
        case .string(let s):
            if s.utf8.count > limits.stringBytes { throw LiquidError.Reason.limitExceeded(.stringBytes(limits.stringBytes)) }
        case .array(let a):
            if a.count > limits.arrayElements { throw LiquidError.Reason.limitExceeded(.arrayElements(limits.arrayElements)) }
        default: break
        }
    }

    /// The text `value` renders as (``LiquidValue/renderedString``), refused past
    /// ``LiquidLimits/stringBytes`` (an array's text can be far larger than its memory).
    public func renderedText(_ value: LiquidValue) throws -> String {
        if case .string(let s) = value { return s }
        return try boundedText { value.write(to: &$0, limit: $1) }
    }

    /// `value` as JSON text (``LiquidValue/jsonString``), refused past ``LiquidLimits/stringBytes``.
    public func jsonText(_ value: LiquidValue) throws -> String {
        try boundedText { value.writeJSONBytes(to: &$0, limit: $1) }
    }

    /// Ruby's `to_s` of `value` as filters see it (arrays and objects as `inspect`), refused
    /// past ``LiquidLimits/stringBytes``.
    public func rubyText(_ value: LiquidValue) throws -> String {
        switch value {
        case .string(let s): return s
        case .array, .object, .drop: return try boundedText { value.writeRubyString(to: &$0, limit: $1) }
        default: return value.renderedString
        }
    }

    /// The text `write` makes (it returns `false` once past the limit it is given), or
    /// ``LiquidLimit/stringBytes(_:)``.
    private func boundedText(_ write: (inout [UInt8], Int) -> Bool) throws -> String {
        var bytes: [UInt8] = []
        guard write(&bytes, limits.stringBytes) else { throw LiquidError.Reason.limitExceeded(.stringBytes(limits.stringBytes)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Variables

    /// The value of the variable `name`, searching loop variables, assigns, counters and data.
    public func variable(_ name: String) -> LiquidValue? { variable(PropertyKey(name)) }

    /// ``variable(_:)`` with a precomputed key.
    @inline(__always)
    func variable(_ key: PropertyKey) -> LiquidValue? {
        var i = locals.count - 1
        while i >= 0 {
            if locals[i].name == key { return locals[i].value }
            i -= 1
        }
        if !globals.isEmpty, let v = globals[key] { return v }
        if !counters.isEmpty, let v = counters[key.name] { return v }
        switch data {
        case .object(let o): return o[key]
        case .drop(let d): return d.drop.liquidProperty(key.name)
        default: return nil
        }
    }

    /// ``variable(_:)``, and when no variable has the name `self`, the current scope's
    /// ``SelfDrop``.
    func variableOrSelf(_ key: PropertyKey) -> LiquidValue? {
        if let v = variable(key) { return v }
        guard key == PropertyKey.selfKey else { return nil }
        if let drop = selfDrop, drop.frame == frame { return .drop(drop) }
        let drop = SelfDrop(context: self, frame: frame)
        selfDrop = drop
        return .drop(drop)
    }

    /// The variable `key` as the scope `frame` sees it: the current scope, or one of the
    /// templates that rendered the current partial; `nil` when that scope has ended.
    func variable(_ key: PropertyKey, inFrame frame: Int) -> LiquidValue? {
        if frame == self.frame { return variableOrSelf(key) }
        guard let saved = savedScopes.last(where: { $0.frame == frame }) else { return nil }
        if let local = saved.locals.last(where: { $0.name == key }) { return local.value }
        if let v = saved.globals[key] { return v }
        if let v = saved.counters[key.name] { return v }
        switch saved.data {
        case .object(let o): return o[key]
        case .drop(let d): return d.drop.liquidProperty(key.name)
        default: return nil
        }
    }

    /// Sets a variable as `assign` does (visible after the enclosing blocks end).
    public func assign(_ name: String, _ value: LiquidValue) { globals[PropertyKey(name)] = value }

    /// Sets a variable as `assign` and `capture` do, counting the value against
    /// ``LiquidLimits/assignScore`` and ``LiquidLimits/stringBytes``.
    public func store(_ name: String, _ value: LiquidValue) throws { try store(PropertyKey(name), value) }

    /// ``store(_:_:)-(String,_)`` with a precomputed key.
    func store(_ key: PropertyKey, _ value: LiquidValue) throws {
        try checkSize(value)
        let score: Int
        switch value {
        case .string(let s): score = s.utf8.count
        case .array(let a): score = a.count
        case .object(let o): score = o.count
        default: score = 1
        }
        let (sum, overflow) = assignScore.addingReportingOverflow(score)
        assignScore = overflow ? .max : sum
        if assignScore > limits.assignScore {
            throw LiquidError.Reason.limitExceeded(.assignScore(limits.assignScore))
        }
        globals[key] = value
    }

    /// Runs `body` with `name` bound to `value` in a new innermost scope.
    func pushLocal(_ name: String, _ value: LiquidValue) { locals.append((PropertyKey(name), value)) }
    func pushLocal(_ key: PropertyKey, _ value: LiquidValue) { locals.append((key, value)) }

    /// Where the loop named `loop` stopped (for `offset: continue`).
    func forOffset(_ loop: String) -> Int? {
        forOffsets.firstIndex { $0.name == loop }.map { forOffsets[$0].offset }
    }

    func setForOffset(_ loop: String, _ offset: Int) {
        if let i = forOffsets.firstIndex(where: { $0.name == loop }) {
            forOffsets[i].offset = offset
        } else {
            forOffsets.append((loop, offset))
        }
    }
    func popLocal() { locals.removeLast() }

    // MARK: Evaluation

    /// Evaluates an expression.
    @inline(__always)
    public func evaluate(_ expression: borrowing LiquidExpression) throws -> LiquidValue {
        switch expression {
        case .literal(let v): return copy v
        case .variable(let path): return try resolve(path)
        case .range(let lo, let hi):
            try checkStack()
            return .range(try rangeBound(try evaluate(lo)), try rangeBound(try evaluate(hi)))
        // As a value (`{{ blank }}`, `assign x = empty`), the reference's `blank` and `empty`
        // are the empty string; only a comparison asks `blank?`/`empty?` of the other side.
        case .blank, .empty: return .string("")
        case .filtered(let f):
            try checkStack()
            return try evaluate(f)
        case .custom(let c): return try c.evaluate(self)
        }
    }

    /// Throws ``LiquidLimit/renderDepth(_:)`` when this thread's stack is nearly used up (see
    /// ``StackGuard``): for the paths that recurse on what a template nests.
    @inline(__always)
    func checkStack() throws {
        if StackGuard.isExhausted(limit: stackLimit) {
            throw LiquidError.Reason.limitExceeded(.renderDepth(limits.renderDepth))
        }
    }

    /// Resolves a variable path.
    public func resolve(_ path: VariablePath) throws -> LiquidValue {
        if !path.names.isEmpty && locals.isEmpty && globals.isEmpty && counters.isEmpty && !options.strictVariables {
            // The common case: a path of names into the render data, borrowed all the way.
            if let box = sessionData {
                return box._withUnsafeGuaranteedRef { RenderContext.descend($0.value, path.names, 0) }
            }
            return RenderContext.descend(data, path.names, 0)
        }
        return try resolveInScope(path)
    }

    /// Follows `names` from `index` on into `value`: each level borrowed, only the result copied.
    static func descend(_ value: borrowing LiquidValue, _ names: borrowing [PropertyKey], _ index: Int) -> LiquidValue {
        if index == names.count { return copy value }
        switch value {
        case .object(let o):
            if let p = o.position(of: names[index]) { return descend(o.entries[p].value, names, index + 1) }
        default: break
        }
        return descend((copy value).property(names[index]), names, index + 1)
    }

    private func resolveInScope(_ path: VariablePath) throws -> LiquidValue {
        switch path.root {
        case .name(let name):
            guard let v = variable(name) ?? (path.rootIsSelf ? variableOrSelf(name) : nil) else {
                if options.strictVariables { throw LiquidError.Reason.undefinedVariable(path.text) }
                return .nil
            }
            return try walk(v, path, 0)
        case .dynamic(let e):
            try checkStack()
            let key = try evaluate(e)
            guard let v = variableOrSelf(PropertyKey(try renderedText(key))) else {
                if options.strictVariables { throw LiquidError.Reason.undefinedVariable(path.text) }
                return .nil
            }
            return try walk(v, path, 0)
        case .value(let e):
            try checkStack()
            return try walk(try evaluate(e), path, 0)
        }
    }

    /// Applies `path`'s lookups from `index` on to `value`. Recursive, so that each level is
    /// borrowed from the one above rather than copied.
    private func walk(_ value: borrowing LiquidValue, _ path: VariablePath, _ index: Int) throws -> LiquidValue {
        if !path.names.isEmpty {
            // A path of names: names[0] is the root, lookup `index` is names[index + 1].
            if index + 1 == path.names.count { return copy value }
            return try walk(value, key: path.names[index + 1], path, index)
        }
        if index == path.otherLookups.count { return copy value }
        switch path.otherLookups[index] {
        case .key(let k):
            return try walk(value, key: k, path, index)
        case .index(let i):
            switch value {
            case .array(let a):
                let j = i < 0 ? i + a.count : i
                return j >= 0 && j < a.count ? try walk(a[j], path, index + 1) : .nil
            default: return try walk((copy value).element(.int(i)), path, index + 1)
            }
        case .dynamic(let e):
            try checkStack()
            return try walk((copy value).element(try evaluate(e)), path, index + 1)
        }
    }

    /// Lookup `index` of `path`, the property `k`.
    private func walk(_ value: borrowing LiquidValue, key k: PropertyKey, _ path: VariablePath, _ index: Int) throws -> LiquidValue {
        switch value {
        case .object(let o):
            if let p = o.position(of: k) { return try walk(o.entries[p].value, path, index + 1) }
            if options.strictVariables, (copy value).property(k).isNil { throw LiquidError.Reason.undefinedVariable(path.text) }
        default: break
        }
        return try walk((copy value).property(k), path, index + 1)
    }

    /// Evaluates an expression and applies its filters.
    public func evaluate(_ expression: FilteredExpression) throws -> LiquidValue {
        try evaluate(expression, filters: expression.filters.count)
    }

    /// Evaluates an expression and applies its first `count` filters.
    func evaluate(_ expression: FilteredExpression, filters count: Int) throws -> LiquidValue {
        var value = try evaluate(expression.expression)
        var i = 0
        while i < count {
            // The expression holds its calls for as long as this render: no retain per call.
            value = try Unmanaged.passUnretained(expression.filters[i])._withUnsafeGuaranteedRef { try apply($0, to: value) }
            i += 1
        }
        return value
    }

    func apply(_ call: FilterCall, to value: borrowing LiquidValue) throws -> LiquidValue {
        guard let filter = call.filter.map(Unmanaged.passUnretained) else {
            if options.strictFilters || template.environment.strictFilters {
                throw LiquidError.Reason.unknownFilter(call.name).at(call.offset)
            }
            return copy value
        }
        // The template holds its filters for as long as this render: no retain per call.
        return try filter._withUnsafeGuaranteedRef { filter in
            do {
                if !call.arityChecked { try filter.checkArity(call.arguments.count, offset: call.offset) }
                if call.hasLiteralArguments {
                    filterOffset = call.offset
                    return try invoke(filter, value, call.literalArguments)
                }
                var args = FilterArguments()
                var i = 0
                while i < call.arguments.count {
                    args.append(try evaluate(call.arguments[i]))
                    i += 1
                }
                for (k, e) in call.keywordArguments { args.keywords.append((k, try evaluate(e))) }
                // (Set once the arguments are evaluated: a filter inside them set its own.)
                filterOffset = call.offset
                return try invoke(filter, value, args)
            } catch let reason as LiquidError.Reason {
                throw LiquidError(reason, offset: call.offset)
            }
        }
    }

    /// Calls `filter` on `value` (a drop as the value it stands for); a result over the size
    /// limits is an error.
    @inline(__always)
    private func invoke(_ filter: LiquidFilter, _ value: borrowing LiquidValue, _ args: borrowing FilterArguments) throws -> LiquidValue {
        filterCalls &+= 1
        if filterCalls & 15 == 0 { _ = try remainingSeconds() }
        let result: LiquidValue
        switch value {
        case .drop: result = try filter.function((copy value).resolved, args, self)
        default: result = try filter.function(value, args, self)
        }
        try checkSize(result)
        return result
    }

    /// Evaluates a condition.
    public func evaluate(_ condition: borrowing Condition) throws -> Bool {
        switch condition {
        case .value(let e): return try evaluate(e).isTruthy
        case .and(let a, let b):
            try checkStack()
            return try evaluate(a) && evaluate(b)
        case .or(let a, let b):
            try checkStack()
            return try evaluate(a) || evaluate(b)
        case .unknownOperator(_, let op, _):
            throw LiquidError.Reason.syntax("Unknown operator \(op)")
        case .comparison(let l, let op, let r):
            // `x == blank`, `empty != x`: `blank?`/`empty?` asked of the other side (the
            // reference's method literals); two such literals are never equal.
            if op == .equal || op == .notEqual {
                let lk = Self.methodLiteral(l), rk = Self.methodLiteral(r)
                if lk != nil && rk != nil { return op == .notEqual }
                if let rk { return try evaluate(l).matches(rk) == (op == .equal) }
                if let lk { return try evaluate(r).matches(lk) == (op == .equal) }
            } else if Self.methodLiteral(l) != nil || Self.methodLiteral(r) != nil {
                // A method literal has no order and no `include?`; as the needle of `contains`
                // it is its text, '', which every string contains.
                if op == .contains, Self.methodLiteral(l) == nil, case .string = try evaluate(l).resolved { return true }
                return false
            }
            let left = try evaluate(l)
            let right = try evaluate(r)
            return try compare(left, op, right)
        }
    }

    /// The `blank` or `empty` literal an expression is, if it is one.
    @inline(__always)
    static func methodLiteral(_ e: borrowing LiquidExpression) -> MethodLiteral? {
        switch e {
        case .blank: return .blank
        case .empty: return .empty
        default: return nil
        }
    }

    func compare(_ left: LiquidValue, _ op: ComparisonOperator, _ right: LiquidValue) throws -> Bool {
        switch op {
        case .equal: return left.liquidEquals(right)
        case .notEqual: return !left.liquidEquals(right)
        case .contains: return left.liquidContains(right)
        case .lessThan: return try left.liquidCompare(right).map { $0 < 0 } ?? false
        case .greaterThan: return try left.liquidCompare(right).map { $0 > 0 } ?? false
        case .lessOrEqual: return try left.liquidCompare(right).map { $0 <= 0 } ?? false
        case .greaterOrEqual: return try left.liquidCompare(right).map { $0 >= 0 } ?? false
        }
    }

    /// Renders `body` into a new buffer and returns that text (as `capture` does).
    public func capture(_ body: Body) throws -> String {
        try capture { try body.render(self) }
    }

    /// Runs `render` with a new output buffer and returns what it wrote.
    public func capture(_ render: () throws -> Void) throws -> String {
        var saved: [UInt8] = []
        swap(&saved, &buffer)
        sole = nil
        defer { swap(&saved, &buffer); sole = nil }
        try render()
        if buffer.count > limits.stringBytes { throw LiquidError.Reason.limitExceeded(.stringBytes(limits.stringBytes)) }
        return String(decoding: buffer, as: UTF8.self)
    }
}

/// The render data of a session, in an immutable box.
final class SessionData: Sendable {
    let value: LiquidValue
    init(_ value: LiquidValue) { self.value = value }
}

/// One spare render context per thread, so that a render allocates no context of its own.
enum RenderContextCache {
    static let slot = ThreadSlot<RenderContext>()

    /// A context for this thread: the spare one, reset, or a new one.
    /// With no `template`, the caller calls ``RenderContext/begin(_:)`` before rendering.
    static func take(template: LiquidTemplate.Storage?, options: RenderOptions, data: LiquidValue) -> RenderContext {
        if let context = slot.take() {
            context.reset(template: template ?? placeholder, options: options, data: data)
            return context
        }
        return RenderContext(template: template ?? placeholder, options: options, data: data)
    }

    /// The template a session's context refers to until its first render.
    static let placeholder = LiquidTemplate(root: Body(), source: "", name: nil, environment: LiquidEnvironment(), warnings: []).storage

    /// Keeps `context` as this thread's spare when nothing else holds it.
    static func give(_ context: inout RenderContext) {
        guard isKnownUniquelyReferenced(&context), slot.isEmpty else { return }
        context.data = .nil
        context.sessionData = nil
        slot.put(context)
    }
}

/// A monotonic clock's nanoseconds (not the wall clock: a clock change never ends a render).
func monotonicNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
}
