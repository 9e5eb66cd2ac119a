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

        @Flag(name: .long, help: "Parse in strict mode.")
        var strict = false

        func run() throws {
            if template == "-" && data == "-" {
                throw ToolError.usage("the template and --data cannot both be standard input ('-')")
            }
            let source = try readText(template)
            let values: LiquidValue = try data.map { try readJSONObject($0, what: "the data") } ?? [:]
            let env = LiquidEnvironment(errorMode: strict ? .strict : .lax)
            do {
                let parsed = try env.parse(source, name: template == "-" ? "<stdin>" : template)
                output(try parsed.render(values), terminator: "")
            } catch let error as LiquidError {
                printError(error.description)
                throw ExitCode(1)
            }
        }
    }
}
