import Foundation

/// Options of one render.
public struct RenderOptions: Sendable {
    /// An undefined variable (or a missing key of an object) is an error.
    public var strictVariables: Bool
    /// An unknown filter is an error (otherwise it passes its input through, as the reference does).
    public var strictFilters: Bool
    /// The time zone of the `date` filter; UTC unless set.
    public var timeZone: TimeZone
    /// What `'now'` and `'today'` mean to the `date` filter: a fixed clock makes renders reproducible.
    public var now: @Sendable () -> Date

    /// Options for a render; by default lenient, UTC and the system clock.
    public init(strictVariables: Bool = false, strictFilters: Bool = false, timeZone: TimeZone = TimeZone(identifier: "UTC")!, now: @escaping @Sendable () -> Date = { Date() }) {
        self.strictVariables = strictVariables
        self.strictFilters = strictFilters
        self.timeZone = timeZone
        self.now = now
    }
}

/// The state of one render: variables, output buffer, counters and limits. Made fresh for
/// every call to ``LiquidTemplate/render(_:options:)``; never shared between threads.
public final class RenderContext {
    /// The template being rendered (its environment and limits).
    private(set) var template: LiquidTemplate.Storage
    /// The environment the template was parsed with.
    public var environment: LiquidEnvironment { template.environment }
    private(set) var limits: LiquidLimits
    /// This render's options.
    public private(set) var options: RenderOptions
    /// The output so far.
    public var output: String
    /// Variables of enclosing `for` loops, `with` bindings and similar, innermost last.
    var locals: [(name: PropertyKey, value: LiquidValue)] = []
    /// Variables set by `assign` and `capture`.
    var globals: [PropertyKey: LiquidValue] = [:]
    /// `increment`/`decrement` counters (the reference keeps them with the render data).
    var counters: [String: LiquidValue] = [:]
    /// The data passed to the render.
    var data: LiquidValue
    /// Set by `break`/`continue` until the enclosing loop handles it.
    public var interrupt: Interrupt?
    var steps = 0
    var cycles: [String: Int] = [:]
    var forOffsets: [String: Int] = [:]
    var lastIfchanged: String?
    var forStack: [ForloopDrop] = []
    var partialDepth = 0
    var trace: [String] = []
    /// Storage for custom tags' per-render state.
    public var registers: [String: any Sendable] = [:]
    /// Non-fatal problems noticed while rendering.
    public var warnings: [String] = []

    /// A loop interruption.
    public enum Interrupt: Sendable { case breakLoop, continueLoop }

    /// Makes the context fresh for another render, keeping its buffers' capacity.
    func reset(template: LiquidTemplate.Storage, options: RenderOptions, data: LiquidValue) {
        self.template = template
        self.limits = template.limits
        self.options = options
        self.data = data
        output = ""
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
        if !trace.isEmpty { trace.removeAll(keepingCapacity: true) }
        if !registers.isEmpty { registers.removeAll(keepingCapacity: true) }
        if !warnings.isEmpty { warnings.removeAll(keepingCapacity: true) }
    }

    init(template: LiquidTemplate.Storage, options: RenderOptions, data: LiquidValue) {
        self.template = template
        self.limits = template.limits
        self.options = options
        self.data = data
        self.output = ""
    }

    /// Appends text to the output.
    @inline(__always) public func write(_ text: String) { output += text }

    /// Counts one render step and enforces the step and output limits.
    @inline(__always) func step() throws {
        steps &+= 1
        if steps > limits.renderSteps {
            throw LiquidError.Reason.limitExceeded(.renderSteps(limits.renderSteps))
        }
        if output.utf8.count > limits.outputBytes {
            throw LiquidError.Reason.limitExceeded(.outputBytes(limits.outputBytes))
        }
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

    /// Sets a variable as `assign` does (visible after the enclosing blocks end).
    public func assign(_ name: String, _ value: LiquidValue) { globals[PropertyKey(name)] = value }

    /// Runs `body` with `name` bound to `value` in a new innermost scope.
    func pushLocal(_ name: String, _ value: LiquidValue) { locals.append((PropertyKey(name), value)) }
    func popLocal() { locals.removeLast() }

    // MARK: Evaluation

    /// Evaluates an expression.
    @inline(__always)
    public func evaluate(_ expression: LiquidExpression) throws -> LiquidValue {
        switch expression {
        case .literal(let v): return v
        case .variable(let path): return try resolve(path)
        case .range(let lo, let hi):
            return .range(try rangeBound(try evaluate(lo)), try rangeBound(try evaluate(hi)))
        case .blank: return .drop(LiquidDropBox(MethodLiteralDrop.blank))
        case .empty: return .drop(LiquidDropBox(MethodLiteralDrop.empty))
        case .filtered(let f): return try evaluate(f)
        case .custom(let c): return try c.evaluate(self)
        }
    }

    /// Resolves a variable path.
    public func resolve(_ path: VariablePath) throws -> LiquidValue {
        var value: LiquidValue
        switch path.root {
        case .name(let name):
            guard let v = variable(name) else {
                if options.strictVariables { throw LiquidError.Reason.undefinedVariable(path.text) }
                return .nil
            }
            value = v
        case .dynamic(let e):
            let key = try evaluate(e)
            guard let v = variable(key.renderedString) else {
                if options.strictVariables { throw LiquidError.Reason.undefinedVariable(path.text) }
                return .nil
            }
            value = v
        case .value(let e):
            value = try evaluate(e)
        }
        for lookup in path.lookups {
            switch lookup {
            case .key(let k):
                let next = value.property(k)
                if next.isNil && options.strictVariables, case .object(let o) = value, o[k] == nil {
                    throw LiquidError.Reason.undefinedVariable(path.text)
                }
                value = next
            case .index(let i): value = value.element(.int(i))
            case .dynamic(let e): value = value.element(try evaluate(e))
            }
        }
        return value
    }

    /// Evaluates an expression and applies its filters.
    public func evaluate(_ expression: FilteredExpression) throws -> LiquidValue {
        var value = try evaluate(expression.expression)
        for call in expression.filters {
            value = try apply(call, to: value)
        }
        return value
    }

    func apply(_ call: FilterCall, to value: LiquidValue) throws -> LiquidValue {
        guard let filter = call.filter else {
            if options.strictFilters || template.environment.strictFilters {
                throw LiquidError.Reason.unknownFilter(call.name).at(call.offset)
            }
            return value
        }
        do {
            try filter.checkArity(call.arguments.count, offset: call.offset)
            var args = FilterArguments()
            for a in call.arguments { args.append(try evaluate(a)) }
            for (k, e) in call.keywordArguments { args.keywords.append((k, try evaluate(e))) }
            return try filter(value.resolved, args, self)
        } catch let reason as LiquidError.Reason {
            throw LiquidError(reason, offset: call.offset)
        }
    }

    /// Evaluates a condition.
    public func evaluate(_ condition: Condition) throws -> Bool {
        switch condition {
        case .value(let e): return try evaluate(e).isTruthy
        case .and(let a, let b): return try evaluate(a) && evaluate(b)
        case .or(let a, let b): return try evaluate(a) || evaluate(b)
        case .comparison(let l, let op, let r):
            let left = try evaluate(l), right = try evaluate(r)
            return try compare(left, op, right)
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
        var saved = ""
        swap(&saved, &output)
        defer { swap(&saved, &output) }
        try render()
        return output
    }
}

/// One spare render context per thread, so that a render allocates no context of its own.
enum RenderContextCache {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            #if canImport(Glibc)
            if let raw { Unmanaged<RenderContext>.fromOpaque(raw).release() }
            #else
            Unmanaged<RenderContext>.fromOpaque(raw).release()
            #endif
        }
        return key
    }()

    /// A context for this thread: the spare one, reset, or a new one.
    static func take(template: LiquidTemplate.Storage, options: RenderOptions, data: LiquidValue) -> RenderContext {
        if let raw = pthread_getspecific(key) {
            pthread_setspecific(key, nil)
            let context = Unmanaged<RenderContext>.fromOpaque(raw).takeRetainedValue()
            context.reset(template: template, options: options, data: data)
            return context
        }
        return RenderContext(template: template, options: options, data: data)
    }

    /// Keeps `context` as this thread's spare when nothing else holds it.
    static func give(_ context: inout RenderContext) {
        guard isKnownUniquelyReferenced(&context), pthread_getspecific(key) == nil else { return }
        context.data = .nil
        pthread_setspecific(key, Unmanaged.passRetained(context).toOpaque())
    }
}
