/// A parsed template: immutable and `Sendable`, so one template renders from many threads
/// at once. Parse with ``LiquidEnvironment/parse(_:name:)``.
public struct LiquidTemplate: Sendable {
    let root: Body
    /// The source it was parsed from.
    public let source: String
    /// Its name, used in error messages.
    public let name: String?
    /// The environment it was parsed with; renders use its filters, file system and limits.
    public let environment: LiquidEnvironment
    /// Warnings from parsing in ``LiquidErrorMode/warn`` mode.
    public let warnings: [LiquidError]
    /// Filters the template uses that its environment does not have (they pass their input
    /// through unless ``RenderOptions/strictFilters`` is set).
    public var unknownFilters: [String] = []

    /// The top-level nodes.
    public var body: Body { root }
}

extension LiquidTemplate {
    /// Renders with `data` (an object, or a drop) and returns the output.
    ///
    /// Throws a ``LiquidError`` with the template name, line and column of the failing node.
    public func render(_ data: LiquidValue = [:], options: RenderOptions = RenderOptions()) throws -> String {
        let context = RenderContext(environment: environment, options: options, data: data)
        try render(into: context)
        return context.output
    }

    /// Renders with a ready context (used by partials and hosts that pre-fill variables).
    public func render(into context: RenderContext) throws {
        do {
            try root.render(context)
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
        RenderContext(environment: environment, options: options, data: data)
    }
}
