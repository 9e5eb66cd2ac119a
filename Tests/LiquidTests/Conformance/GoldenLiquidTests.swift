import Foundation
import Liquid
import Testing

/// The Golden Liquid suite from `../shared`, case by case, with the checked-in skip list.
@Suite("Golden Liquid conformance")
struct GoldenLiquidTests {
    struct Skip: Decodable { let name: String; let reason: String }
    struct SkipFile: Decodable { let skips: [Skip] }

    static let suite: ConformanceSuite? = {
        guard let data = FileManager.default.contents(atPath: TestPaths.goldenLiquid.path) else { return nil }
        return try? ConformanceSuite(json: String(decoding: data, as: UTF8.self))
    }()

    static let skips: [String: String] = {
        let url = TestPaths.fixtures.appendingPathComponent("golden-liquid-skips.json")
        guard let data = FileManager.default.contents(atPath: url.path),
              let file = try? JSONDecoder().decode(SkipFile.self, from: data) else { return [:] }
        return Dictionary(file.skips.map { ($0.name, $0.reason) }, uniquingKeysWith: { a, _ in a })
    }()

    static var caseNames: [String] { suite?.cases.map(\.name) ?? [] }

    @Test("the suite is present (required under CI=true)")
    func suiteIsPresent() throws {
        if Self.suite == nil {
            if TestPaths.isCI {
                Issue.record("Golden Liquid suite missing at \(TestPaths.goldenLiquid.path); CI requires it")
            }
            return
        }
        #expect(Self.suite!.cases.count >= 1000)
    }

    @Test("every skip names a case and gives a reason")
    func skipListIsValid() throws {
        let names = Set(Self.caseNames)
        for (name, reason) in Self.skips {
            #expect(!reason.trimmingCharacters(in: .whitespaces).isEmpty, "skip '\(name)' has no reason")
            if Self.suite != nil { #expect(names.contains(name), "skip '\(name)' names no case") }
        }
    }

    @Test("case", arguments: caseNames)
    func goldenCase(_ name: String) throws {
        guard let suite = Self.suite, let c = suite.cases.first(where: { $0.name == name }) else { return }
        if Self.skips[name] != nil { return }
        let outcome = ConformanceSuite.run(c)
        switch outcome.actual {
        case .success(let text):
            #expect(outcome.passed, "template \(c.template.debugDescription): expected \(c.invalid ? "an error" : c.results.debugDescription), got \(text.debugDescription)")
        case .failure(let error):
            #expect(outcome.passed, "template \(c.template.debugDescription): expected \(c.results.debugDescription), got error \(error)")
        }
    }
}
