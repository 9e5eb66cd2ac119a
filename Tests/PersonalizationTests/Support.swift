import Foundation
import Liquid
import Personalization

enum TestPaths {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repositoryRoot.appendingPathComponent("Tests/PersonalizationTests/Fixtures")
}

let fixedNow = "2026-11-22T10:00:00Z"

func document(_ json: String) throws -> RenderContextDocument { try RenderContextDocument(json: json) }

func brazeRender(_ source: String, _ doc: RenderContextDocument, dialect: BrazeDialect = BrazeDialect()) throws -> MessageRenderResult {
    try dialect.environment().parse(source).renderMessage(doc)
}
