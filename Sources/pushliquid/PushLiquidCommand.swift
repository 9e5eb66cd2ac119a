import ArgumentParser
import Foundation
import Liquid

@main
struct PushLiquidCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushliquid",
        abstract: "Preview, check and render Liquid push campaigns (Braze dialect).",
        discussion: """
            Campaigns live in Templates/<name>.yml, user profiles (Braze user exports) in Profiles/.
            Exit codes: 0 success, 1 template or data error, 2 usage error, 3 message aborted (render).
            """,
        subcommands: [Preview.self, Render.self, Check.self, Batch.self, Golden.self, Conformance.self, Bench.self, RenderTemplate.self],
        defaultSubcommand: nil
    )

    /// Runs the command; usage errors exit 2, template and data errors 1.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch let error as ToolError {
            printError(error.message)
            Foundation.exit(error.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            if code == .validationFailure {
                printError(fullMessage(for: error))
                Foundation.exit(2)
            }
            printError("error: \(error)")
            Foundation.exit(1)
        }
    }
}

/// An error the tool reports with its own exit code.
struct ToolError: Error {
    var message: String
    var exitCode: Int32 = 1
    static func usage(_ message: String) -> ToolError { ToolError(message: "error: " + message, exitCode: 2) }
}

/// Prints to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Reads a file as UTF-8; a missing file is a usage error.
func readText(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ToolError.usage("cannot read '\(path)': no such file or not readable")
    }
    return String(decoding: data, as: UTF8.self)
}
