import Foundation
import LiquidTestSupport
import Liquid
import Personalization
import PushPayload

enum TestPaths {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var pushliquidBinary: URL { BuiltProducts.url("pushliquid", repositoryRoot: repositoryRoot) }
}

func compile(_ yaml: String, blocks: [String: String] = [:]) throws -> CompiledCampaign {
    let campaign = try Campaign(yaml: yaml, file: "test.yml")
    return try CompiledCampaign(campaign, dialect: BrazeDialect(contentBlocks: InMemoryContentBlocks(blocks)), fileText: yaml)
}

func doc(_ json: String) throws -> RenderContextDocument { try RenderContextDocument(json: json) }

func runPushliquid(_ arguments: [String], stdin: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    try BuiltProducts.run(TestPaths.pushliquidBinary, arguments, in: TestPaths.repositoryRoot, stdin: stdin)
}
