/// What `include` and `render` share: the partial's name, `with`/`for`, `as` and keyword arguments.
struct PartialCall: Sendable {
    var name: LiquidExpression
    var variable: LiquidExpression?
    var isFor = false
    var alias: String?
    var attributes: [(String, LiquidExpression)] = []

    static func parse(_ stream: inout MarkupStream, requireLiteralName: Bool) throws -> PartialCall {
        let nameExpr = try stream.expression()
        if requireLiteralName, case .literal(.string) = nameExpr {} else if requireLiteralName {
            throw LiquidError.Reason.syntax("render needs a quoted template name").at(stream.offset)
        }
        var call = PartialCall(name: nameExpr)
        if stream.accept(word: "with") {
            call.variable = try stream.expression()
        } else if stream.accept(word: "for") {
            call.variable = try stream.expression()
            call.isFor = true
        }
        if stream.accept(word: "as") { call.alias = try stream.expectIdentifier("a name after 'as'") }
        _ = stream.acceptComma()
        while !stream.isAtEnd {
            guard stream.atKeywordArgument, let key = stream.identifier() else {
                if stream.lax { stream.advance(); continue }
                throw stream.unexpected("'key: value' arguments")
            }
            _ = stream.acceptColon()
            call.attributes.append((key, try stream.expression()))
            _ = stream.acceptComma()
        }
        return call
    }
}

extension RenderContext {
    /// Loads and parses a partial, once per render.
    func loadPartial(_ name: String) throws -> LiquidTemplate {
        if let cached = registers["partial:" + name] as? LiquidTemplate { return cached }
        guard let fileSystem = environment.fileSystem else { throw LiquidError.Reason.templateNotFound(name) }
        let source: String
        do { source = try fileSystem.readTemplate(named: name) } catch let error as LiquidError { throw error.reason }
        let template = try environment.parse(source, name: name)
        registers["partial:" + name] = template
        return template
    }

    /// Everything a `{% render %}` partial must not see of the template that renders it.
    struct SavedScope {
        let locals: [(name: PropertyKey, value: LiquidValue)]
        let globals: [PropertyKey: LiquidValue]
        let counters: [String: LiquidValue]
        let data: LiquidValue
        let sessionData: Unmanaged<SessionData>?
        let cycles: [String: Int]
        let forOffsets: [(name: String, offset: Int)]
        let lastIfchanged: String?
        let isolated: (any Sendable)?
        let forStack: [ForloopDrop]
        let frame: Int
    }

    /// The current scope, to put back with ``restoreScope(_:)``.
    func saveScope() -> SavedScope {
        let saved = SavedScope(locals: locals, globals: globals, counters: counters, data: data, sessionData: sessionData, cycles: cycles,
                               forOffsets: forOffsets, lastIfchanged: lastIfchanged, isolated: registers["isolated"], forStack: forStack,
                               frame: frame)
        savedScopes.append(saved)
        return saved
    }

    /// An empty scope: no variables, no data (not the session's either), no loop state.
    func clearScope() {
        locals = []
        globals = [:]
        counters = [:]
        data = [:]
        sessionData = nil
        cycles = [:]
        forOffsets = []
        lastIfchanged = nil
        forStack = []
        registers["isolated"] = true
        frameCount &+= 1
        frame = frameCount
    }

    func restoreScope(_ saved: SavedScope) {
        (locals, globals, counters, data, sessionData, cycles, forOffsets, lastIfchanged, forStack) =
            (saved.locals, saved.globals, saved.counters, saved.data, saved.sessionData, saved.cycles, saved.forOffsets, saved.lastIfchanged, saved.forStack)
        registers["isolated"] = saved.isolated
        frame = saved.frame
        if let i = savedScopes.lastIndex(where: { $0.frame == saved.frame }) { savedScopes.removeSubrange(i...) }
    }

    /// Renders a partial in the current scope, with the partial chain and depth tracked and
    /// errors located in the partial's own source.
    public func renderPartial(_ template: LiquidTemplate, name: String) throws {
        guard partialDepth < limits.partialDepth else {
            throw LiquidError.Reason.limitExceeded(.partialDepth(limits.partialDepth))
        }
        partialDepth += 1
        trace.append(name)
        partialTemplates.append(template)
        defer {
            partialDepth -= 1
            trace.removeLast()
            partialTemplates.removeLast()
        }
        do {
            try template.root.render(self)
        } catch var error as LiquidError {
            if error.location == nil { error.locate(in: template.source, name: name) }
            if error.trace.isEmpty { error.trace = trace }
            throw error
        } catch let reason as LiquidError.Reason {
            var error = LiquidError(reason)
            error.templateName = name
            error.trace = trace
            throw error
        }
    }
}

/// `{% include 'name' with x as y, key: value %}`: renders a partial in the current scope.
struct IncludeTag: LiquidTag {
    let name = "include"

    struct Node: LiquidNode {
        let call: PartialCall
        func render(_ context: RenderContext) throws {
            if context.registers["isolated"] != nil {
                throw LiquidError.Reason.syntax("include usage is not allowed in this context")
            }
            let name = try context.renderedText(try context.evaluate(call.name))
            let partial = try context.loadPartial(name)
            let alias = call.alias ?? String(name.split(separator: "/").last ?? "")
            let variable = try call.variable.map { try context.evaluate($0) } ?? context.variable(name) ?? .nil
            let mark = context.locals.count
            defer { context.locals.removeSubrange(mark...) }
            for (key, expr) in call.attributes { context.pushLocal(key, try context.evaluate(expr)) }
            if case .array(let items) = variable {
                context.pushLocal(alias, .nil)
                let slot = context.locals.count - 1
                for item in items {
                    context.locals[slot].value = item
                    try context.renderPartial(partial, name: name)
                }
            } else {
                context.pushLocal(alias, variable)
                try context.renderPartial(partial, name: name)
            }
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        Node(call: try parser.parseMarkup(tag.markup, offset: tag.markupOffset) { try PartialCall.parse(&$0, requireLiteralName: false) })
    }
}

/// `{% render 'name' with x as y, key: value %}` and `for`: renders a partial in an isolated scope.
struct RenderTag: LiquidTag {
    let name = "render"

    struct Node: LiquidNode {
        let call: PartialCall
        let templateName: String

        func render(_ context: RenderContext) throws {
            let partial = try context.loadPartial(templateName)
            let alias = call.alias ?? String(templateName.split(separator: "/").last ?? "")
            let variable = try call.variable.map { try context.evaluate($0) } ?? .nil
            var attributes: [(String, LiquidValue)] = []
            for (key, expr) in call.attributes { attributes.append((key, try context.evaluate(expr))) }

            // Isolate: the partial sees only its arguments, and a `break` or `continue` in it
            // ends the partial, never a loop around the `render` tag.
            let saved = context.saveScope()
            defer {
                context.restoreScope(saved)
                context.interrupt = nil
            }
            // The partial's arguments live in its only scope, where its `assign`s go too.
            if call.isFor, variable.resolved.stringValue == nil, let items = LoopItems(variable) {
                let forloop = ForloopDrop(name: templateName, length: items.count, parent: .nil)
                for i in 0..<items.count {
                    let item = items[i]
                    context.clearScope()
                    forloop.index0 = i
                    context.globals[PropertyKey("forloop")] = .drop(forloop)
                    for (k, v) in attributes { context.globals[PropertyKey(k)] = v }
                    context.globals[PropertyKey(alias)] = item
                    try context.renderPartial(partial, name: templateName)
                    try context.step()
                }
            } else {
                context.clearScope()
                for (k, v) in attributes { context.globals[PropertyKey(k)] = v }
                if !variable.isNil { context.globals[PropertyKey(alias)] = variable }
                try context.renderPartial(partial, name: templateName)
            }
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        let call = try parser.parseMarkup(tag.markup, offset: tag.markupOffset) { try PartialCall.parse(&$0, requireLiteralName: true) }
        guard case .literal(.string(let name)) = call.name else {
            throw LiquidError.Reason.syntax("render needs a quoted template name").at(tag.markupOffset)
        }
        return Node(call: call, templateName: name)
    }
}
