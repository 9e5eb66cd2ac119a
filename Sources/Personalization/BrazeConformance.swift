import Liquid

extension ConformanceSuite {
    /// Runs one case in the Braze dialect: `data` is a render context document, `templates`
    /// are content blocks, and an aborted message is a result (`"aborted": true`,
    /// `"abort_reason"`).
    public static func runBraze(_ c: Case, dialect: BrazeDialect = BrazeDialect()) -> Outcome {
        run(c) { c in
            var d = dialect
            if d.contentBlocks == nil { d.contentBlocks = InMemoryContentBlocks(c.templates) }
            let env = d.environment(errorMode: c.isStrict ? .strict : .lax)
            let document = try RenderContextDocument(value: c.data)
            switch try env.parse(c.template).renderMessage(document) {
            case .rendered(let text): return .text(text)
            case .aborted(let reason): return .aborted(reason)
            }
        }
    }
}
