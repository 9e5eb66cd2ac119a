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
        /// A number too large (or too small) for what it is used as: a loop bound, a count,
        /// rounding places, a time. Ruby would use a bignum here; the text names the use.
        case numberOutOfRange(String)
        /// A partial that the file system does not have.
        case templateNotFound(String)
        /// A resource limit was reached.
        case limitExceeded(LiquidLimit)
        /// Source text (a template, a content block, a campaign or JSON file) that is not
        /// valid UTF-8: the first offending byte.
        case invalidUTF8(byte: UInt8)
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
        case .numberOutOfRange(let what): return "number out of range: \(what)"
        case .templateNotFound(let n): return "template '\(n)' not found"
        case .limitExceeded(let l): return l.message
        case .invalidUTF8(let byte): return "invalid UTF-8 (byte 0x\(String(byte, radix: 16, uppercase: true)))"
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

/// A resource limit for untrusted templates (see ``LiquidLimits``), with the value that was
/// exceeded.
public enum LiquidLimit: Sendable, Equatable {
    /// The output grew past this many bytes.
    case outputBytes(Int)
    /// The render took more than this many steps (nodes rendered and loop iterations).
    case renderSteps(Int)
    /// Blocks, expressions or lookups nested deeper than this in a template.
    case nestingDepth(Int)
    /// Blocks rendered one inside the other, through partials and content blocks, deeper than this.
    case renderDepth(Int)
    /// Partials included or rendered deeper than this.
    case partialDepth(Int)
    /// A filter, `assign` or `capture` made a string longer than this many bytes.
    case stringBytes(Int)
    /// A filter made an array (or turned a range into one) of more than this many elements.
    case arrayElements(Int)
    /// `assign` and `capture` stored more than this in one render (string bytes, array and
    /// object elements: Ruby Liquid's assign score).
    case assignScore(Int)
    /// The render (or the renders of one ``RenderSession``) took longer than this many seconds.
    case renderSeconds(Double)
    /// More than this many requests to the outside world (Connected Content) in one render
    /// or session.
    case externalRequests(Int)
    /// A `strftime` directive asked for a width over this (`%1000000d`).
    case strftimeWidth(Int)

    var message: String {
        switch self {
        case .outputBytes(let n): return "output limit of \(n) bytes exceeded"
        case .renderSteps(let n): return "render step limit of \(n) exceeded"
        case .nestingDepth(let n): return "nesting too deep (limit \(n))"
        case .partialDepth(let n): return "partials nested too deep (limit \(n))"
        case .renderDepth(let n): return "blocks nested too deep while rendering (limit \(n), partials included)"
        case .stringBytes(let n): return "string size limit of \(n) bytes exceeded"
        case .arrayElements(let n): return "array size limit of \(n) elements exceeded"
        case .assignScore(let n): return "assign limit of \(n) exceeded (bytes and elements stored by assign and capture)"
        case .renderSeconds(let s): return "render time limit of \(rubyFloatString(s)) s exceeded"
        case .externalRequests(let n): return "limit of \(n) external requests per render exceeded"
        case .strftimeWidth(let n): return "date format width limit of \(n) exceeded"
        }
    }
}

extension LiquidError.Reason {
    /// This reason at a UTF-8 offset of the template source (``TagToken/offset`` and
    /// ``TagToken/markupOffset`` are such offsets); the template fills in line and column.
    public func at(_ offset: Int?) -> LiquidError { LiquidError(self, offset: offset) }
}
