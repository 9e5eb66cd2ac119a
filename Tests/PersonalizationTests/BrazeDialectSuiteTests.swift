import Foundation
import Liquid
import Personalization
import Testing

/// Braze documentation examples as a Golden Liquid-format suite (`Fixtures/braze-dialect.json`).
@Suite("Braze dialect suite")
struct BrazeDialectSuiteTests {
    static let suite: ConformanceSuite = {
        let url = TestPaths.fixtures.appendingPathComponent("braze-dialect.json")
        let text = FileManager.default.contents(atPath: url.path).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return (try? ConformanceSuite(json: text)) ?? (try! ConformanceSuite(json: #"{"tests": []}"#))
    }()

    @Test func suiteIsPresent() { #expect(Self.suite.cases.count >= 50) }

    @Test("case", arguments: suite.cases.map(\.name))
    func brazeCase(_ name: String) throws {
        let c = try #require(Self.suite.cases.first { $0.name == name })
        let outcome = ConformanceSuite.runBraze(c)
        #expect(outcome.passed, "template \(c.template.debugDescription): got \(outcome.actual)")
    }
}
