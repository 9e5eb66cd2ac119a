import ArgumentParser
import Foundation
import Liquid

@main
struct PushLiquidCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushliquid",
        abstract: "Render and check Liquid push campaigns.",
        subcommands: [Conformance.self, RenderTemplate.self]
    )
}

/// Prints to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Reads a file as UTF-8, or exits with a clear error.
func readText(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationError("cannot read '\(path)': no such file or not readable")
    }
    return String(decoding: data, as: UTF8.self)
}
