/// A dialect's `${...}` attributes: `${first_name}`, `custom_attribute.${points}`.
public protocol LiquidAttributeSyntax: Sendable {
    /// The expression for `${name}`, after `namespace.` when one was written
    /// (`custom_attribute.${points}` gives namespace `custom_attribute`). Throw
    /// ``LiquidError/Reason/syntax(_:)`` for an unknown namespace.
    func expression(namespace: String?, name: String) throws -> LiquidExpression
    /// ``expression(namespace:name:)`` for a reference at UTF-8 `offset` in the template
    /// source (for expressions that warn at their place); by default the same expression.
    func expression(namespace: String?, name: String, offset: Int) throws -> LiquidExpression
}

extension LiquidAttributeSyntax {
    public func expression(namespace: String?, name: String, offset: Int) throws -> LiquidExpression {
        try expression(namespace: namespace, name: name)
    }
}

/// How partials (`include`, `render`) are found.
public protocol LiquidFileSystem: Sendable {
    /// The source of the partial called `name` as written in the tag (`'product'`).
    /// Throw ``LiquidError/Reason/templateNotFound(_:)`` when there is none.
    func readTemplate(named name: String) throws -> String
}

/// An in-memory file system.
public struct InMemoryFileSystem: LiquidFileSystem {
    /// Partials by name.
    public var templates: [String: String]
    /// A file system holding `templates`.
    public init(_ templates: [String: String]) { self.templates = templates }
    public func readTemplate(named name: String) throws -> String {
        guard let source = templates[name] else { throw LiquidError(.templateNotFound(name)) }
        return source
    }
}

/// Parse modes, as in the Ruby reference.
public enum LiquidErrorMode: Sendable {
    /// The reference's default: tolerate junk in markup where the reference does.
    case lax
    /// Report malformed markup as an error.
    case strict
    /// Liquid 5.13's stricter parser: strict, and also refuses what strict lets through (a
    /// bracket with no variable before it such as `[0]`, `contains` used as a value, a number
    /// as a variable name, markup on `raw`, a trailing comma after a `for`), while it takes an
    /// empty argument list (`upcase:`) and a trailing comma in filter arguments.
    case strict2
    /// Parse as ``strict2``, but on a markup error fall back to lax parsing and record a warning.
    case warn
}

/// Limits for untrusted templates and data. Each one reached is a ``LiquidError`` with
/// ``LiquidError/Reason/limitExceeded(_:)`` naming the limit, located where the template was
/// when it fired: never a hang, a crash or memory that grows without bound.
///
/// The defaults suit a send pipeline rendering millions of recipients on a small machine:
/// a template that stays within them renders exactly as without them, and one that does not
/// fails alone, quickly, with a reason.
public struct LiquidLimits: Sendable, Equatable {
    /// Maximum output bytes of one render (10 MB).
    public var outputBytes: Int
    /// Maximum render steps (nodes rendered plus loop iterations) of one render (1,000,000,
    /// about a second of the slowest steps, partials included).
    public var renderSteps: Int
    /// Maximum depth of nested blocks, expressions and lookups in a template (100, as Ruby
    /// Liquid's).
    public var nestingDepth: Int
    /// Maximum depth of blocks being rendered one inside the other, counted through partials
    /// and content blocks (200): what bounds the stack a render uses.
    public var renderDepth: Int
    /// Maximum depth of nested `include`/`render` (50).
    public var partialDepth: Int
    /// Maximum bytes of one string that a filter, `assign` or `capture` makes (1 MB).
    public var stringBytes: Int
    /// Maximum elements of one array that a filter makes, ranges turned into arrays included
    /// (100,000).
    public var arrayElements: Int
    /// Maximum total that `assign` and `capture` store in one render: each string counts its
    /// bytes, each array or object its elements, anything else 1 (Ruby Liquid's assign score).
    /// Building a string by appending in a loop costs the sum of its sizes, so quadratic
    /// growth stops early (100,000,000).
    public var assignScore: Int
    /// Wall-clock seconds one render may take, or all the renders of one ``RenderSession``
    /// (one message) together; Connected Content requests wait at most what is left (5 s).
    public var renderSeconds: Double
    /// Requests to the outside world (a dialect's Connected Content) in one render or session,
    /// cached answers not counted (10).
    public var externalRequests: Int
    /// The widest `strftime` directive the `date` filter accepts (`%1000d`: 1,000).
    public var strftimeWidth: Int

    /// Limits with defaults safe for a send pipeline (each documented on its property).
    public init(outputBytes: Int = 10_000_000, renderSteps: Int = 1_000_000, nestingDepth: Int = 100, renderDepth: Int = 200, partialDepth: Int = 50,
                stringBytes: Int = 1_000_000, arrayElements: Int = 100_000, assignScore: Int = 100_000_000,
                renderSeconds: Double = 5, externalRequests: Int = 10, strftimeWidth: Int = 1_000) {
        self.outputBytes = outputBytes
        self.renderSteps = renderSteps
        self.nestingDepth = nestingDepth
        self.renderDepth = renderDepth
        self.partialDepth = partialDepth
        self.stringBytes = stringBytes
        self.arrayElements = arrayElements
        self.assignScore = assignScore
        self.renderSeconds = renderSeconds
        self.externalRequests = externalRequests
        self.strftimeWidth = strftimeWidth
    }
}

/// Everything a template is parsed and rendered with: tags, filters, the partials' file
/// system, the parse mode and the limits. Immutable and `Sendable`: build one, share it.
///
/// ```swift
/// let env = LiquidEnvironment()
/// let template = try env.parse("Hello {{ name | upcase }}")
/// let text = try template.render(["name": "ana"])
/// ```
public struct LiquidEnvironment: Sendable {
    /// Tags, filters and the other reference-typed parts, shared by copies (copying an
    /// environment costs one reference count) and copied on write.
    final class Registry: Sendable {
        let tags: [String: any LiquidTag]
        let filters: [String: LiquidFilter]
        let fileSystem: (any LiquidFileSystem)?
        var attributeSyntax: (any LiquidAttributeSyntax)? { hasAttributeSyntax ? syntax : nil }
        /// The attribute syntax, or one that has none: not optional, so that the parser calls
        /// it in place (unwrapping an optional existential copies it, two reference counts).
        let syntax: any LiquidAttributeSyntax
        let hasAttributeSyntax: Bool
        init(tags: [String: any LiquidTag], filters: [String: LiquidFilter], fileSystem: (any LiquidFileSystem)?, attributeSyntax: (any LiquidAttributeSyntax)?) {
            self.tags = tags
            self.filters = filters
            self.fileSystem = fileSystem
            self.syntax = attributeSyntax ?? NoAttributeSyntax()
            self.hasAttributeSyntax = attributeSyntax != nil
        }
    }
    private(set) var registry: Registry

    /// `true` when `other` has the same registry, mode and limits (so a parser keeps its copy).
    /// Compares every stored property: one added to the environment belongs here too.
    func isSame(as other: LiquidEnvironment) -> Bool {
        registry === other.registry && errorMode == other.errorMode && limits == other.limits && strictFilters == other.strictFilters
    }

    /// `true` when the environment has an ``attributeSyntax`` (read without copying it).
    var hasAttributeSyntax: Bool { registry.hasAttributeSyntax }

    /// Standard Liquid's: `${` is not an expression.
    private struct NoAttributeSyntax: LiquidAttributeSyntax {
        func expression(namespace: String?, name: String) throws -> LiquidExpression {
            throw LiquidError.Reason.syntax("'${\(name)}' needs a dialect with attribute syntax")
        }
    }

    /// Tags by name.
    public var tags: [String: any LiquidTag] { registry.tags }
    /// Filters by name.
    public var filters: [String: LiquidFilter] { registry.filters }
    /// Where `include` and `render` find partials.
    public var fileSystem: (any LiquidFileSystem)? {
        get { registry.fileSystem }
        set { registry = Registry(tags: tags, filters: filters, fileSystem: newValue, attributeSyntax: attributeSyntax) }
    }
    /// The parse mode.
    public var errorMode: LiquidErrorMode
    /// Resource limits.
    public var limits: LiquidLimits
    /// Default for ``RenderOptions/strictFilters``: unknown filters are errors at render time.
    public var strictFilters: Bool = false
    /// A dialect's `${name}` attribute syntax (Braze's); `nil` in standard Liquid, where
    /// `${` is a syntax error. With it, `{{ ... }}` may also nest inside tag markup and
    /// filter arguments, as the Braze dashboard accepts.
    public var attributeSyntax: (any LiquidAttributeSyntax)? {
        get { registry.attributeSyntax }
        set { registry = Registry(tags: tags, filters: filters, fileSystem: fileSystem, attributeSyntax: newValue) }
    }

    /// An environment with every standard tag and filter.
    public init(errorMode: LiquidErrorMode = .lax, fileSystem: (any LiquidFileSystem)? = nil, limits: LiquidLimits = LiquidLimits()) {
        self.errorMode = errorMode
        self.limits = limits
        self.registry = LiquidEnvironment.standardRegistry(fileSystem: fileSystem)
    }

    private static let standard: (tags: [String: any LiquidTag], filters: [String: LiquidFilter]) = (
        Dictionary(StandardTags.all.map { ($0.name, $0) }, uniquingKeysWith: { _, b in b }),
        Dictionary(StandardFilters.all.map { ($0.name, $0) }, uniquingKeysWith: { _, b in b })
    )

    private static func standardRegistry(fileSystem: (any LiquidFileSystem)?) -> Registry {
        Registry(tags: standard.tags, filters: standard.filters, fileSystem: fileSystem, attributeSyntax: nil)
    }

    /// An environment with no tags or filters at all.
    public static func empty(errorMode: LiquidErrorMode = .lax) -> LiquidEnvironment {
        var env = LiquidEnvironment(errorMode: errorMode)
        env.registry = Registry(tags: [:], filters: [:], fileSystem: nil, attributeSyntax: nil)
        return env
    }

    /// Adds or replaces a tag.
    public mutating func register(_ tag: any LiquidTag) {
        var t = tags
        t[tag.name] = tag
        registry = Registry(tags: t, filters: filters, fileSystem: fileSystem, attributeSyntax: attributeSyntax)
    }

    /// Adds or replaces a filter.
    public mutating func register(_ filter: LiquidFilter) {
        var f = filters
        f[filter.name] = filter
        registry = Registry(tags: tags, filters: f, fileSystem: fileSystem, attributeSyntax: attributeSyntax)
    }

    /// A copy with another parse mode.
    public func with(errorMode: LiquidErrorMode) -> LiquidEnvironment {
        var copy = self
        copy.errorMode = errorMode
        return copy
    }

    /// Filter problems as located errors, one per position.
    static func locate(_ problems: [(reason: LiquidError.Reason, offset: Int)], in source: String, name: String?) -> [LiquidError] {
        var seen = Set<Int>()
        return problems.filter { seen.insert($0.offset).inserted }.sorted { $0.offset < $1.offset }.map { use in
            var error = LiquidError(use.reason, offset: use.offset)
            error.locate(in: source, name: name)
            return error
        }
    }

    /// Parses `source` into a template. Syntax errors throw here, with line and column.
    public func parse(_ source: String, name: String? = nil) throws -> LiquidTemplate {
        do {
            let parser = try LiquidParser.make(source: source, environment: self, name: name)
            defer { LiquidParser.recycle(parser) }
            let root = try parser.parseDocument()
            return LiquidTemplate(root: root, source: source, name: name, environment: self, warnings: parser.warnings,
                                  filterProblems: parser.filterProblems.isEmpty ? [] : Self.locate(parser.filterProblems, in: source, name: name))
        } catch var error as LiquidError {
            error.locate(in: source, name: name)
            throw error
        } catch let reason as LiquidError.Reason {
            var error = LiquidError(reason)
            error.templateName = name
            throw error
        }
    }
}
