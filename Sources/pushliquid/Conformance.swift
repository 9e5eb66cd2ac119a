import ArgumentParser
import Liquid

extension PushLiquidCommand {
    struct Conformance: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a conformance suite in the Golden Liquid format.",
            discussion: """
                Cases tagged 'strict' parse in strict mode, the rest in lax mode; 'invalid' cases \
                must fail. Prints every failure with its expected and actual output, then \
                'N passed, N failed'. Exits 1 when any case fails.
                """
        )

        @Argument(help: "The suite's JSON file, e.g. ../shared/conformance/golden-liquid/golden_liquid.json.")
        var file: String

        @Flag(name: .long, help: "Print only the summary line.")
        var quiet = false

        func run() throws {
            let suite: ConformanceSuite
            do {
                suite = try ConformanceSuite(json: try readText(file))
            } catch let error as JSONValueParser.SyntaxError {
                throw ValidationError("\(file):\(error)")
            }
            let outcomes = suite.run()
            var failed = 0
            for outcome in outcomes where !outcome.passed {
                failed += 1
                if quiet { continue }
                let c = outcome.testCase
                print("FAIL \(c.name)")
                print("  template: \(c.template.debugDescription)")
                print("  expected: \(c.invalid ? "an error" : c.results.map(\.debugDescription).joined(separator: " or "))")
                switch outcome.actual {
                case .success(let text): print("  actual:   \(text.debugDescription)")
                case .failure(let error): print("  actual:   error: \(error)")
                }
            }
            print("\(outcomes.count - failed) passed, \(failed) failed")
            if failed > 0 { throw ExitCode(1) }
        }
    }
}
