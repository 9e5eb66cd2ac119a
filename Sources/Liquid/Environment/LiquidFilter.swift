/// A filter: a name, the number of arguments it takes, and the function applied.
///
/// Filters are registered on a ``LiquidEnvironment``; the parser looks them up once, so a
/// render never searches for a filter by name.
public final class LiquidFilter: Sendable {
    /// The function: input, then the evaluated arguments and the render context.
    public typealias Function = @Sendable (LiquidValue, FilterArguments, RenderContext) throws -> LiquidValue

    /// The filter's name, `upcase`.
    public let name: String
    /// The fewest positional arguments accepted.
    public let minArguments: Int
    /// The most positional arguments accepted; `nil` for no limit.
    public let maxArguments: Int?
    /// Keyword argument names it accepts (`allow_false`).
    public let keywords: [String]
    let function: Function
    /// For filters that only transform text: appends the result for `input` straight to a
    /// render's output, or returns `false` when it cannot (the output then takes the usual way).
    let appendToOutput: (@Sendable (LiquidValue, inout [UInt8]) -> Bool)?

    /// A filter taking between `minArguments` and `maxArguments` positional arguments.
    public convenience init(_ name: String, arguments: ClosedRange<Int> = 0...0, unlimited: Bool = false, keywords: [String] = [], _ function: @escaping Function) {
        self.init(name, arguments: arguments, unlimited: unlimited, keywords: keywords, function, appendToOutput: nil)
    }

    init(_ name: String, arguments: ClosedRange<Int> = 0...0, unlimited: Bool = false, keywords: [String] = [], _ function: @escaping Function,
         appendToOutput: (@Sendable (LiquidValue, inout [UInt8]) -> Bool)?) {
        self.name = name
        self.minArguments = arguments.lowerBound
        self.maxArguments = unlimited ? nil : arguments.upperBound
        self.keywords = keywords
        self.function = function
        self.appendToOutput = appendToOutput
    }

    /// `true` when the filter takes `count` positional arguments.
    func accepts(argumentCount count: Int) -> Bool {
        count >= minArguments && (maxArguments.map { count <= $0 } ?? true)
    }

    func checkArity(_ count: Int, offset: Int?) throws {
        if !accepts(argumentCount: count) {
            let expected: String
            if let maxArguments, maxArguments == minArguments { expected = "\(minArguments)" }
            else if let maxArguments { expected = "\(minArguments) to \(maxArguments)" }
            else { expected = "at least \(minArguments)" }
            throw LiquidError.Reason.filterArity(filter: name, expected: expected, got: count).at(offset)
        }
    }

    /// Applies the filter.
    public func callAsFunction(_ input: LiquidValue, _ arguments: FilterArguments, _ context: RenderContext) throws -> LiquidValue {
        try function(input, arguments, context)
    }
}

/// The evaluated arguments of one filter call. Up to two positional arguments are stored
/// inline, so most filter calls allocate nothing for their arguments.
public struct FilterArguments: Sendable {
    private var first: LiquidValue = .nil
    private var second: LiquidValue = .nil
    private var more: [LiquidValue] = []
    /// The number of positional arguments.
    public private(set) var count = 0
    /// Keyword arguments in the order written.
    public var keywords: [(String, LiquidValue)]

    /// Arguments from their parts.
    public init(_ positional: [LiquidValue] = [], keywords: [(String, LiquidValue)] = []) {
        self.keywords = keywords
        for v in positional { append(v) }
    }

    /// Adds a positional argument.
    public mutating func append(_ value: LiquidValue) {
        switch count {
        case 0: first = value
        case 1: second = value
        default: more.append(value)
        }
        count += 1
    }

    /// Positional arguments, in order.
    public var positional: [LiquidValue] {
        var all: [LiquidValue] = []
        for i in 0..<count { all.append(self[i]) }
        return all
    }

    /// The positional argument at `index`, or `nil` when absent.
    @inline(__always) public subscript(index: Int) -> LiquidValue {
        switch index {
        case _ where index >= count || index < 0: return .nil
        case 0: return first
        case 1: return second
        default: return more[index - 2]
        }
    }

    /// `true` when there is a positional argument at `index`.
    public func has(_ index: Int) -> Bool { index < count }

    /// The keyword argument `name`, when given.
    public func keyword(_ name: String) -> LiquidValue? {
        keywords.last { $0.0 == name }?.1
    }
}
