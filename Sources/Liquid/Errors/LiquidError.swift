/// An error from parsing or rendering a template.
///
/// Tests should match on ``reason``; ``description`` renders the whole error the way a
/// compiler does: `welcome:3:14: error: unknown tag 'endfr'`.
public struct LiquidError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Error, Sendable, Equatable {
        /// A tag name no registered tag has.
        case unknownTag(String)
        /// A block tag (`if`, `for`...) without its end tag.
        case unclosedBlock(String)
        /// An `end...`, `else` or similar tag with no open block that takes it.
        case unexpectedTag(String)
        /// Markup that does not follow the grammar.
        case unexpectedToken(expected: String, found: String)
        /// Other malformed markup, described.
        case syntax(String)
        /// A filter name no registered filter has (strict filters, or strict parsing).
        case unknownFilter(String)
        /// A filter called with the wrong number of arguments.
        case filterArity(filter: String, expected: String, got: Int)
        /// A variable that is not defined (strict variables).
        case undefinedVariable(String)
        /// A filter or operator given a value it cannot work with.
        case argument(String)
        /// Division or modulo by zero.
        case zeroDivision
        /// A partial that the file system does not have.
        case templateNotFound(String)
        /// A resource limit was reached.
        case limitExceeded(LiquidLimit)
        /// A custom tag or filter's error.
        case custom(String)
    }

    /// What went wrong.
    public var reason: Reason
    /// Where, when known.
    public var location: SourceLocation?
    /// The name of the template (or partial) in which it went wrong, when it has one.
    public var templateName: String?
    /// The chain of partials (`include`/`render`) that led here, outermost first.
    public var trace: [String]

    /// UTF-8 offset into the source, kept until the location is computed.
    var offset: Int?

    /// An error with the given reason and optional location.
    public init(_ reason: Reason, location: SourceLocation? = nil, templateName: String? = nil, trace: [String] = []) {
        self.reason = reason
        self.location = location
        self.templateName = templateName
        self.trace = trace
    }

    init(_ reason: Reason, offset: Int?) {
        self.init(reason)
        self.offset = offset
    }

    public static func == (lhs: LiquidError, rhs: LiquidError) -> Bool {
        lhs.reason == rhs.reason && lhs.location == rhs.location && lhs.templateName == rhs.templateName && lhs.trace == rhs.trace
    }

    /// The message without position: `unknown tag 'endfr'`.
    public var message: String {
        switch reason {
        case .unknownTag(let t): return "unknown tag '\(t)'"
        case .unclosedBlock(let t): return "'\(t)' tag was never closed"
        case .unexpectedTag(let t): return "unexpected tag '\(t)'"
        case .unexpectedToken(let expected, let found): return "expected \(expected), found \(found)"
        case .syntax(let s): return s
        case .unknownFilter(let f): return "unknown filter '\(f)'"
        case .filterArity(let f, let expected, let got): return "filter '\(f)' takes \(expected) argument\(expected == "1" ? "" : "s"), got \(got)"
        case .undefinedVariable(let v): return "undefined variable '\(v)'"
        case .argument(let s): return s
        case .zeroDivision: return "divided by 0"
        case .templateNotFound(let n): return "template '\(n)' not found"
        case .limitExceeded(let l): return l.message
        case .custom(let s): return s
        }
    }

    /// `name:line:col: error: message`, followed by the partial chain.
    public var description: String {
        var prefix = templateName ?? "<template>"
        if let location { prefix += ":\(location.line):\(location.column)" }
        var text = "\(prefix): error: \(message)"
        if !trace.isEmpty { text += " (in \(trace.joined(separator: " > ")))" }
        return text
    }

    /// Fills in the location and template name from the source when they are missing.
    mutating func locate(in source: String, name: String?) {
        if location == nil, let offset { location = SourceLocation(utf8Offset: offset, in: source) }
        if templateName == nil { templateName = name }
    }
}

/// A resource limit for untrusted templates.
public enum LiquidLimit: Sendable, Equatable {
    /// The output grew past this many bytes.
    case outputBytes(Int)
    /// The render took more than this many steps (nodes rendered and loop iterations).
    case renderSteps(Int)
    /// Blocks nested deeper than this.
    case nestingDepth(Int)
    /// Partials included or rendered deeper than this.
    case partialDepth(Int)

    var message: String {
        switch self {
        case .outputBytes(let n): return "output limit of \(n) bytes exceeded"
        case .renderSteps(let n): return "render step limit of \(n) exceeded"
        case .nestingDepth(let n): return "nesting too deep (limit \(n))"
        case .partialDepth(let n): return "partials nested too deep (limit \(n))"
        }
    }
}

extension LiquidError.Reason {
    /// This reason at a UTF-8 offset of the template source (``TagToken/offset`` and
    /// ``TagToken/markupOffset`` are such offsets); the template fills in line and column.
    public func at(_ offset: Int?) -> LiquidError { LiquidError(self, offset: offset) }
}
