import Foundation
import ArgumentParser
import Liquid
import Personalization

/// The Liquid dialect a command works in.
enum Dialect: String, ExpressibleByArgument, CaseIterable {
    case standard, braze
}

extension PushLiquidCommand {
    struct Conformance: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a conformance suite in the Golden Liquid format.",
            discussion: """
                Cases tagged 'strict2' parse in Liquid 5.13's strict2 mode, those tagged 'strict' \
                in strict mode, the rest in lax mode; 'invalid' cases must fail. Prints every \
                failure with its expected and actual output, then 'N passed, N failed'. \
                liquid-spec's cases expect the clock of 'now' and 'today' frozen: run them with \
                --now 2024-01-01T00:01:58Z.

                Exit codes: 0 every case passed, 1 some case failed or the file is not a suite, 2 usage error.
                """
        )

        @Argument(help: "The suite's JSON file, e.g. ../shared/conformance/golden-liquid/golden_liquid.json.")
        var file: String

        @Option(name: .long, help: "standard (Shopify Liquid 5) or braze (data is a render context document; aborted cases carry \"aborted\": true and \"abort_reason\").")
        var dialect: Dialect = .standard

        @Option(name: .long, help: ArgumentHelp("What 'now' and 'today' mean, an ISO 8601 time (default: the system clock).", valueName: "time"))
        var now: String?

        @Flag(name: .long, help: "Print only the summary line.")
        var quiet = false

        func run() throws {
            let suite: ConformanceSuite
            do {
                suite = try ConformanceSuite(json: try readText(file))
            } catch let error as JSONValueParser.SyntaxError {
                throw ToolError(message: "\(file):\(error.line):\(error.column): error: invalid JSON: \(error.message)")
            } catch let error as LiquidError {
                throw ToolError(message: "\(file): error: \(error.message)")
            }
            var options = RenderOptions()
            var clock: Date?
            if let now {
                guard let date = parseISO8601(now) else { throw ToolError.usage("--now must be an ISO 8601 time such as 2024-01-01T00:01:58Z, got '\(now)'") }
                options.now = { date }
                clock = date
            }
            let outcomes = dialect == .braze ? suite.cases.map { ConformanceSuite.runBraze($0, now: clock) } : suite.run(options: options)
            var failed = 0
            for outcome in outcomes where !outcome.passed {
                failed += 1
                if quiet { continue }
                let c = outcome.testCase
                output("FAIL \(c.name)")
                output("  template: \(c.template.debugDescription)")
                let expected = c.invalid ? "an error" : c.aborted ? "aborted(\(c.abortReason.debugDescription))" : c.results.map(\.debugDescription).joined(separator: " or ")
                output("  expected: \(expected)")
                switch outcome.actual {
                case .success(.text(let text)): output("  actual:   \(text.debugDescription)")
                case .success(.aborted(let reason)): output("  actual:   aborted(\(reason.debugDescription))")
                case .failure(let error): output("  actual:   error: \(error)")
                }
            }
            output("\(outcomes.count - failed) passed, \(failed) failed")
            if failed > 0 { throw ExitCode(1) }
        }
    }
}
