import Foundation
import LiquidTestSupport

/// Paths the tests read: the repository root and `../shared` beside it.
enum TestPaths {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `../shared` beside the repository; `PUSHLIQUID_SHARED` overrides it.
    static let shared = ProcessInfo.processInfo.environment["PUSHLIQUID_SHARED"].map { URL(fileURLWithPath: $0) }
        ?? repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    static let goldenLiquid = shared.appendingPathComponent("conformance/golden-liquid/golden_liquid.json")
    static let liquidSpec = shared.appendingPathComponent("conformance/liquid-spec/liquid_spec.json")
    static let liquidSpecStrict2 = shared.appendingPathComponent("conformance/liquid-spec/liquid_spec_strict2.json")
    static let fixtures = repositoryRoot.appendingPathComponent("Tests/LiquidTests/Fixtures")
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The built `pushliquid` binary, beside the test bundle.
    static var pushliquidBinary: URL { BuiltProducts.url("pushliquid", repositoryRoot: repositoryRoot) }
}

/// Renders `source` with `data`; test shorthand.
import Liquid
func render(_ source: String, _ data: LiquidValue = [:], mode: LiquidErrorMode = .lax, options: RenderOptions = RenderOptions(), fileSystem: (any LiquidFileSystem)? = nil) throws -> String {
    let env = LiquidEnvironment(errorMode: mode, fileSystem: fileSystem)
    return try env.parse(source).render(data, options: options)
}

