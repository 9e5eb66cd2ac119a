import ArgumentParser
import Foundation
import Liquid
import Personalization
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
        var templates: String?

        @Option(name: .long, help: "The contexts (NDJSON).")
        var contexts: String?

        @Option(name: .long, help: "Measure a page instead: a JSON page spec ({\"template\", \"data\"}, standard Liquid unless \"dialect\": \"braze\", as Benchmarks/workloads/gen_workloads.py writes), rendered --iterations times; prints `page_seconds=S pages=N output_bytes=B`.")
        var page: String?

        @Option(name: .long, help: "Renders of the page (with --page).")
        var iterations = 100

        @Option(name: .long, help: "braze (default) or standard.")
        var dialect: Dialect = .braze

        @Option(name: .long, help: "Untimed passes before the measured one.")
        var warmup = 1

        @Option(name: .long, help: "Measure parsing instead: parse every field this many times; prints `parse_seconds=S parses=N`.")
        var parseRounds: Int?

        func run() throws {
            if let page { return try runPage(page) }
            guard let templates, let contexts else { throw ToolError.usage("give --templates and --contexts, or --page") }
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

        /// One page spec rendered `iterations` times (after `warmup` passes), parsed once.
        func runPage(_ path: String) throws {
            let spec: LiquidValue
            do { spec = try JSONValueParser.parse(try readText(path)) } catch let e as JSONValueParser.SyntaxError {
                throw ToolError(message: "\(path):\(e.line):\(e.column): error: invalid JSON: \(e.message)")
            }
            guard case .string(let source)? = spec.arrayValue == nil ? spec.property("template") : nil else {
                throw ToolError(message: "\(path): error: a page spec is an object with a \"template\" string")
            }
            let data = spec.property("data")
            // `"dialect": "braze"` in the spec: the Braze dialect's tags and filters.
            let env = spec.property("dialect").stringValue == "braze" ? BrazeDialect().environment() : LiquidEnvironment()
            let template: LiquidTemplate
            do { template = try env.parse(source, name: path) } catch let e as LiquidError {
                throw ToolError(message: e.description)
            }
            var bytes = 0
            do {
                for _ in 0..<max(0, warmup) { bytes = try template.render(data).utf8.count }
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<max(1, iterations) { bytes = try template.render(data).utf8.count }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                output(String(format: "page_seconds=%.6f pages=%d output_bytes=%d", seconds, max(1, iterations), bytes))
            } catch let e as LiquidError {
                throw ToolError(message: e.description)
            }
        }
    }
}
