/// A suite in the Golden Liquid format (`{"tests": [{name, template, data, templates,
/// result | results | invalid, tags}]}`) and a runner for it.
public struct ConformanceSuite: Sendable {
    /// One case.
    public struct Case: Sendable {
        /// Unique name; the part before the first comma is the group.
        public var name: String
        /// Template source.
        public var template: String
        /// Render data.
        public var data: LiquidValue
        /// Partials by name.
        public var templates: [String: String]
        /// Acceptable outputs (one or more); empty for `invalid` cases.
        public var results: [String]
        /// The template must fail to parse or render.
        public var invalid: Bool
        /// The message must abort (dialects with `abort_message`), with ``abortReason``.
        public var aborted: Bool
        /// The expected abort reason (`nil` for none).
        public var abortReason: String?
        /// Tags such as `strict`.
        public var tags: [String]

        /// `true` when the case is to be parsed in strict mode.
        public var isStrict: Bool { tags.contains("strict") || tags.contains("strict2") }
        /// The parse mode its tags ask for: `strict2`, `strict`, or lax when neither.
        public var errorMode: LiquidErrorMode {
            tags.contains("strict2") ? .strict2 : tags.contains("strict") ? .strict : .lax
        }
    }

    /// What a case's render gave.
    public enum Output: Sendable, Equatable {
        /// Text.
        case text(String)
        /// An aborted message, with its reason.
        case aborted(String?)
    }

    /// A case's outcome.
    public struct Outcome: Sendable {
        /// The case.
        public var testCase: Case
        /// What the engine produced: output, or the error.
        public var actual: Result<Output, LiquidError>
        /// Whether it matched.
        public var passed: Bool
    }

    /// The cases in file order.
    public var cases: [Case]

    /// Reads a suite from JSON text.
    public init(json: String) throws {
        guard case .object(let root) = try JSONValueParser.parse(json), case .array(let tests)? = root["tests"] else {
            throw LiquidError(.syntax("a conformance suite is an object with a 'tests' array"))
        }
        cases = try tests.map { test in
            guard case .object(let t) = test, case .string(let name)? = t["name"], case .string(let template)? = t["template"] else {
                throw LiquidError(.syntax("every test needs a 'name' and a 'template'"))
            }
            var templates: [String: String] = [:]
            if case .object(let ts)? = t["templates"] { for (k, v) in ts { templates[k] = v.renderedString } }
            var results: [String] = []
            if case .string(let r)? = t["result"] { results = [r] }
            if case .array(let rs)? = t["results"] { results = rs.map(\.renderedString) }
            let tags = (t["tags"]?.arrayValue ?? []).map(\.renderedString)
            return Case(name: name, template: template, data: t["data"] ?? [:], templates: templates, results: results,
                        invalid: t["invalid"]?.isTruthy ?? false, aborted: t["aborted"]?.isTruthy ?? false,
                        abortReason: t["abort_reason"]?.stringValue, tags: tags)
        }
    }

    /// Runs one case with `base` (its tags, filters and options), in the mode its tags ask
    /// for (``Case/errorMode``). `options.now` is the clock of `'now'` and `'today'`:
    /// liquid-spec's cases expect 2024-01-01T00:01:58Z.
    public static func run(_ c: Case, base: LiquidEnvironment = LiquidEnvironment(), options: RenderOptions = RenderOptions()) -> Outcome {
        run(c) { c in
            var env = base.with(errorMode: c.errorMode)
            env.fileSystem = InMemoryFileSystem(c.templates)
            return .text(try env.parse(c.template).render(c.data, options: options))
        }
    }

    /// Runs one case with a dialect's own `render`, which returns the output or throws.
    public static func run(_ c: Case, render: (Case) throws -> Output) -> Outcome {
        let actual: Result<Output, LiquidError>
        do {
            actual = .success(try render(c))
        } catch let e as LiquidError {
            actual = .failure(e)
        } catch {
            actual = .failure(LiquidError(.custom("\(error)")))
        }
        let passed: Bool
        switch actual {
        case .success(.text(let text)): passed = !c.invalid && !c.aborted && c.results.contains(text)
        case .success(.aborted(let reason)): passed = c.aborted && reason == c.abortReason
        case .failure: passed = c.invalid
        }
        return Outcome(testCase: c, actual: actual, passed: passed)
    }

    /// Runs every case.
    public func run(base: LiquidEnvironment = LiquidEnvironment(), options: RenderOptions = RenderOptions()) -> [Outcome] {
        cases.map { Self.run($0, base: base, options: options) }
    }
}
