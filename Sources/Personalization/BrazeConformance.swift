import Foundation
import Liquid

extension ConformanceSuite {
    /// Runs one case in the Braze dialect: `data` is a render context document, `templates`
    /// are content blocks, and an aborted message is a result (`"aborted": true`,
    /// `"abort_reason"`). `now`, when given, is the clock instead of the document's.
    public static func runBraze(_ c: Case, dialect: BrazeDialect = BrazeDialect(), now: Date? = nil) -> Outcome {
        run(c) { c in
            var d = dialect
            if d.contentBlocks == nil { d.contentBlocks = InMemoryContentBlocks(c.templates) }
            let env = d.environment(errorMode: c.errorMode)
            let document = try RenderContextDocument(value: c.data)
            var options = document.renderOptions()
            if let now { options.now = { now } }
            switch try env.parse(c.template).renderMessage(document, options: options) {
            case .rendered(let text): return .text(text)
            case .aborted(let reason): return .aborted(reason)
            }
        }
    }
}
