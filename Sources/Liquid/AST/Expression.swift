/// A compiled expression: a literal, a variable path, a range or a `blank`/`empty` literal.
public enum LiquidExpression: Sendable {
    /// A constant.
    case literal(LiquidValue)
    /// A variable path such as `product.tags[0]`.
    case variable(VariablePath)
    /// `(start..end)` with non-constant ends.
    indirect case range(LiquidExpression, LiquidExpression)
    /// The `blank` literal.
    case blank
    /// The `empty` literal.
    case empty
    /// An expression with filters, written `{{ x | f }}` inside markup (dialects that allow it).
    case filtered(FilteredExpression)
    /// An expression a dialect computes itself (see ``LiquidCustomExpression``).
    indirect case custom(any LiquidCustomExpression)
}

/// An expression node contributed by a dialect (for example a content block reference).
public protocol LiquidCustomExpression: Sendable {
    /// Computes the value in `context`.
    func evaluate(_ context: RenderContext) throws -> LiquidValue
}

/// A variable path resolved at parse time: a root name and a list of lookups. A class, so
/// that rendering passes it around by reference.
public final class VariablePath: Sendable {
    /// How the path starts.
    public enum Root: Sendable {
        /// A plain name, `product`.
        case name(PropertyKey)
        /// A bracketed expression, `['product']` or `[name]`: the variable it names.
        case dynamic(LiquidExpression)
        /// The value of an expression itself (a dialect's attribute followed by lookups).
        case value(LiquidExpression)
    }
    /// One step after the root.
    public enum Lookup: Sendable {
        /// `.title` or `['title']`; `size`, `first` and `last` are handled here too.
        case key(PropertyKey)
        /// `[0]`, `[-1]`.
        case index(Int)
        /// `[expression]`.
        case dynamic(LiquidExpression)
    }
    /// The root.
    public let root: Root
    /// The root is the name `self`: when no variable has it, it is the current scope
    /// (decided here, so that rendering other paths never compares names).
    let rootIsSelf: Bool
    /// The lookups, in order.
    public var lookups: [Lookup] { names.isEmpty ? otherLookups : names.dropFirst().map { .key($0) } }
    /// The path as written, for error messages.
    public var text: String {
        switch written {
        case .text(let text): return text
        case .attribute(nil, let name): return "${" + name + "}"
        case .attribute(let namespace?, let name): return namespace + ".${" + name + "}"
        }
    }
    /// The root name and every lookup, when the path is only names (`profile.first_name`):
    /// the render's fast path. Empty for other paths, whose lookups are in `otherLookups`.
    let names: [PropertyKey]
    let otherLookups: [Lookup]
    private let written: Written

    /// How the path was written: as text, or as a dialect's `${name}` attribute (whose text
    /// is only made when a message needs it).
    private enum Written: Sendable {
        case text(String)
        case attribute(namespace: String?, name: String)
    }

    /// A path from its parts.
    public init(root: Root, lookups: [Lookup], text: String) {
        (self.root, self.written) = (root, .text(text))
        if case .name(let first) = root, first == PropertyKey.selfKey { rootIsSelf = true } else { rootIsSelf = false }
        if case .name(let first) = root, !rootIsSelf, lookups.allSatisfy({ if case .key = $0 { true } else { false } }) {
            var names: [PropertyKey] = []
            names.reserveCapacity(lookups.count + 1)
            names.append(first)
            for case .key(let k) in lookups { names.append(k) }
            (self.names, self.otherLookups) = (names, [])
        } else {
            (self.names, self.otherLookups) = ([], lookups)
        }
    }

    /// A path of names: the root variable, then properties (`profile.custom_attributes.points`).
    /// `names` must not be empty.
    public init(names: [PropertyKey], text: String) {
        precondition(!names.isEmpty, "a path has a root name")
        if names[0] == PropertyKey.selfKey {
            // `self` (when no variable has that name) is the scope itself: never the fast path
            // into the render data.
            (self.root, self.names, self.otherLookups, self.written) = (.name(names[0]), [], names.dropFirst().map { .key($0) }, .text(text))
            rootIsSelf = true
            return
        }
        (self.root, self.names, self.otherLookups, self.written) = (.name(names[0]), names, [], .text(text))
        rootIsSelf = false
    }

    /// A path of names that a dialect's attribute reads: `${first_name}` or, with a namespace,
    /// `custom_attribute.${points}` (its ``text``). `names` must not be empty.
    public init(names: [PropertyKey], attribute name: String, namespace: String?) {
        precondition(!names.isEmpty, "a path has a root name")
        (self.root, self.names, self.otherLookups) = (.name(names[0]), names, [])
        self.written = .attribute(namespace: namespace, name: name)
        rootIsSelf = false
    }

    /// The root name, when the root is a plain name.
    public var rootName: String? { if case .name(let n) = root { return n.name } else { return nil } }
}

/// A comparison operator of `if`, `unless` and `when`.
public enum ComparisonOperator: String, Sendable {
    case equal = "==", notEqual = "!=", lessThan = "<", greaterThan = ">"
    case lessOrEqual = "<=", greaterOrEqual = ">=", contains
}

/// A condition of `if`/`elsif`/`unless`: comparisons joined by `and`/`or`, grouped from the right.
public enum Condition: Sendable {
    /// A value tested for truthiness.
    case value(LiquidExpression)
    /// `left op right`.
    case comparison(LiquidExpression, ComparisonOperator, LiquidExpression)
    /// `left and right`.
    indirect case and(Condition, Condition)
    /// `left or right`.
    indirect case or(Condition, Condition)
    /// `left op right` with an operator the reference does not know, which lax parsing takes
    /// (`{% elsif a true b %}`): an error only when it is evaluated.
    /// (Indirect: a rare case, boxed, so that `Condition` keeps the size and the cheap copies
    /// of the common ones.)
    indirect case unknownOperator(LiquidExpression, String, LiquidExpression)
}

/// A filter call in an output or tag: `| name: arg, key: value`. A class, so that rendering
/// passes it around by reference.
public final class FilterCall: Sendable {
    /// The filter's name as written.
    public let name: String
    /// The filter, found at parse time; `nil` when no filter has that name (lax mode).
    public let filter: LiquidFilter?
    /// Positional arguments.
    public let arguments: [LiquidExpression]
    /// Keyword arguments, in order.
    public let keywordArguments: [(String, LiquidExpression)]
    /// UTF-8 offset in the template source.
    let offset: Int
    /// The argument count is known to suit the filter (checked once, here, instead of per render).
    let arityChecked: Bool
    /// The filter's direct output writer, when it has one and the call has no arguments.
    var appendToOutput: (@Sendable (LiquidValue, inout [UInt8]) -> Bool)? {
        arguments.isEmpty && keywordArguments.isEmpty ? filter?.appendToOutput : nil
    }
    /// The arguments, when every one is a literal (`times: 100`, `date: '%b %d'`): evaluated
    /// once (``hasLiteralArguments``).
    let literalArguments: FilterArguments
    let hasLiteralArguments: Bool

    init(name: String, filter: LiquidFilter?, arguments: [LiquidExpression], keywordArguments: [(String, LiquidExpression)], offset: Int) {
        self.name = name
        self.filter = filter
        self.arguments = arguments
        self.keywordArguments = keywordArguments
        self.offset = offset
        self.arityChecked = filter?.accepts(argumentCount: arguments.count) ?? false
        // Literal arguments evaluated once, here (one pass, no closures: this runs per filter call).
        var args = FilterArguments()
        var literal = true
        for a in arguments {
            guard case .literal(let v) = a else { literal = false; break }
            args.append(v)
        }
        if literal && !keywordArguments.isEmpty {
            for (k, e) in keywordArguments {
                guard case .literal(let v) = e else { literal = false; break }
                args.keywords.append((k, v))
            }
        }
        literalArguments = literal ? args : FilterArguments()
        hasLiteralArguments = literal
    }
}

/// An expression followed by filters: `name | upcase | append: '!'`.
public final class FilteredExpression: Sendable {
    /// The input expression.
    public let expression: LiquidExpression
    /// The filters, applied left to right.
    public let filters: [FilterCall]

    /// An expression with filters.
    public init(expression: LiquidExpression, filters: [FilterCall]) {
        self.expression = expression
        self.filters = filters
    }
}

extension LiquidExpression {
    /// The constant value when the expression is a literal.
    var constantValue: LiquidValue? { if case .literal(let v) = self { return v } else { return nil } }
}
