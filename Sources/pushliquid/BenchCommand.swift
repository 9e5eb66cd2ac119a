import ArgumentParser
import Foundation
import Liquid
import PushPayload

extension PushLiquidCommand {
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure field renders: every field of a template set for every context, templates compiled once.",
            discussion: """
                TEMPLATES has the shape of ../shared/bench/w1-learning-progress.*.json (title, body, \
                key_value_pairs); CONTEXTS is NDJSON of render context documents (gen_contexts.py). JSON \
                decoding happens before the timed loop, which runs on one thread; each context's fields \
                render in one render session, as a message's fields do in the send pipeline (each \
                field still a separate render). The last line is \
                `render_seconds=S renders=N`, the figure the reference's script prints.

                Exit codes: 0 measured, 1 a file that does not read or parse, 2 usage error.
                """
        )

        @Option(name: .long, help: "The template set (JSON).")
        var templates: String

        @Option(name: .long, help: "The contexts (NDJSON).")
        var contexts: String

        @Option(name: .long, help: "braze (default) or standard.")
        var dialect: Dialect = .braze

        @Option(name: .long, help: "Untimed passes before the measured one.")
        var warmup = 1

        @Option(name: .long, help: "Measure parsing instead: parse every field this many times; prints `parse_seconds=S parses=N`.")
        var parseRounds: Int?

        func run() throws {
            let bench: FieldRenderBenchmark
            do {
                bench = try FieldRenderBenchmark(templateSet: try readText(templates), contexts: try readText(contexts),
                                                 contextsName: contexts, braze: dialect == .braze)
            } catch let e as ToolError { throw e } catch let e as JSONValueParser.SyntaxError {
                throw ToolError(message: "\(templates):\(e.line):\(e.column): error: invalid JSON: \(e.message)")
            } catch let e as LiquidError {
                throw ToolError(message: "\(templates): \(e.description)")
            } catch let e as PayloadError {
                throw ToolError(message: e.description)  // "error: FILE: line N: ..."
            } catch {
                throw ToolError(message: "error: \(error)")
            }
            if let rounds = parseRounds {
                for _ in 0..<max(0, warmup) { _ = try bench.parse(rounds: max(1, rounds / 10)) }
                let p = try bench.parse(rounds: rounds)
                output(String(format: "parse_seconds=%.6f parses=%d", p.seconds, p.parses))
                return
            }
            for _ in 0..<max(0, warmup) { _ = try bench.run() }
            let r = try bench.run()
            output(String(format: "fields=%d contexts=%d output_bytes=%d renders_per_second=%.0f", bench.templates.count, bench.contexts.count, r.bytes, Double(r.renders) / r.seconds))
            output(String(format: "render_seconds=%.6f renders=%d", r.seconds, r.renders))
        }
    }
}
