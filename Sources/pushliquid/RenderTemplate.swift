import ArgumentParser
import Liquid

extension PushLiquidCommand {
    struct RenderTemplate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "liquid",
            abstract: "Render a standard Liquid template file with JSON data."
        )

        @Argument(help: "The template file.")
        var template: String

        @Option(name: .long, help: "A JSON file with the render data.")
        var data: String?

        @Flag(name: .long, help: "Parse in strict mode.")
        var strict = false

        func run() throws {
            let source = try readText(template)
            let values: LiquidValue = try data.map { try JSONValueParser.parse(try readText($0)) } ?? [:]
            let env = LiquidEnvironment(errorMode: strict ? .strict : .lax)
            do {
                let parsed = try env.parse(source, name: template)
                print(try parsed.render(values), terminator: "")
            } catch let error as LiquidError {
                printError(error.description)
                throw ExitCode(1)
            }
        }
    }
}
