import ArgumentParser
import Liquid

extension PushLiquidCommand {
    struct RenderTemplate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "liquid",
            abstract: "Render a standard Liquid template file with JSON data.",
            discussion: "Exit codes: 0 rendered, 1 template or data error (or output that could not be written), 2 usage error."
        )

        @Argument(help: "The template file ('-' for standard input).")
        var template: String

        @Option(name: .long, help: "A JSON file with the render data, an object ('-' for standard input).")
        var data: String?

        @Flag(name: .long, help: "Parse in strict mode (the same as --mode strict).")
        var strict = false

        @Option(name: .long, help: "The parse mode, as Liquid 5.13's: lax (the default; markup read as the reference's lax parser reads it), strict, strict2 (5.13's strictest), or warn (strict2, falling back to lax with a warning on standard error).")
        var mode: ParseMode?

        enum ParseMode: String, ExpressibleByArgument, CaseIterable {
            case lax, strict, strict2, warn
            var errorMode: LiquidErrorMode {
                switch self {
                case .lax: .lax
                case .strict: .strict
                case .strict2: .strict2
                case .warn: .warn
                }
            }
        }

        func run() throws {
            if template == "-" && data == "-" {
                throw ToolError.usage("the template and --data cannot both be standard input ('-')")
            }
            let source = try readText(template)
            let values: LiquidValue = try data.map { try readJSONObject($0, what: "the data") } ?? [:]
            if strict, let mode, mode != .strict { throw ToolError.usage("--strict and --mode \(mode.rawValue) disagree") }
            let env = LiquidEnvironment(errorMode: mode?.errorMode ?? (strict ? .strict : .lax))
            do {
                let parsed = try env.parse(source, name: template == "-" ? "<stdin>" : template)
                for warning in parsed.warnings { printError("warning: \(warning.description)") }
                output(try parsed.render(values), terminator: "")
            } catch let error as LiquidError {
                printError(error.description)
                throw ExitCode(1)
            }
        }
    }
}
