import Foundation
import Liquid
import Testing

/// Shopify's liquid-spec (converted to the Golden Liquid format, in `../shared`), run as its
/// README says liquid-spec runs it: UTC, the clock frozen at 2024-01-01T00:01:58Z, each case in
/// the mode its tags name (`strict2`, `strict`, or lax).
enum LiquidSpec {
    static let frozenNow = Date(timeIntervalSince1970: 1_704_067_318)  // 2024-01-01T00:01:58Z
    static let options = RenderOptions(now: { LiquidSpec.frozenNow })

    static func run(_ c: ConformanceSuite.Case) -> ConformanceSuite.Outcome {
        ConformanceSuite.run(c, options: options)
    }

    static func checkPresent(_ fixture: FixtureSuite, at url: URL, atLeast count: Int) {
        guard let suite = fixture.suite else {
            if TestPaths.isCI { Issue.record("liquid-spec suite missing at \(url.path); CI requires it") }
            return
        }
        #expect(suite.cases.count >= count)
    }
}

@Suite("liquid-spec (liquid_spec.json)")
struct LiquidSpecTests {
    static let fixture = FixtureSuite(suite: TestPaths.liquidSpec, skips: TestPaths.fixtures.appendingPathComponent("liquid_spec.skips.json"))

    @Test("the suite is present (required under CI=true)")
    func suiteIsPresent() { LiquidSpec.checkPresent(Self.fixture, at: TestPaths.liquidSpec, atLeast: 2500) }

    @Test("every skip names a case and gives a reason")
    func skipListIsValid() { Self.fixture.checkSkips() }

    @Test("the frozen clock is liquid-spec's")
    func frozenClock() throws {
        #expect(try render("{{ 'now' | date: '%Y-%m-%dT%H:%M:%S' }}", options: LiquidSpec.options) == "2024-01-01T00:01:58")
    }

    @Test("case", arguments: fixture.caseNames)
    func specCase(_ name: String) { Self.fixture.check(name, runner: LiquidSpec.run) }
}

@Suite("liquid-spec strict2 (liquid_spec_strict2.json)")
struct LiquidSpecStrict2Tests {
    static let fixture = FixtureSuite(suite: TestPaths.liquidSpecStrict2, skips: TestPaths.fixtures.appendingPathComponent("liquid_spec_strict2.skips.json"))

    @Test("the suite is present (required under CI=true)")
    func suiteIsPresent() {
        LiquidSpec.checkPresent(Self.fixture, at: TestPaths.liquidSpecStrict2, atLeast: 1900)
        #expect(Self.fixture.suite?.cases.allSatisfy { $0.errorMode == .strict2 } ?? true, "every case is tagged strict2")
    }

    @Test("every skip names a case and gives a reason")
    func skipListIsValid() { Self.fixture.checkSkips() }

    @Test("case", arguments: fixture.caseNames)
    func specCase(_ name: String) { Self.fixture.check(name, runner: LiquidSpec.run) }
}
