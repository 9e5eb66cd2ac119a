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
            Exit codes: 0 success, 1 template or data error, 2 usage error, 3 message aborted (render),
            4 batch finished with failed lines.
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

/// Reads standard input into `buffer`; the byte count, 0 at the end of the input.
func readStandardInput(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while true {
        let n = read(0, buffer.baseAddress, buffer.count)
        if n >= 0 { return n }
        if errno == EINTR { continue }
        throw ToolError(message: "error: cannot read standard input: \(String(cString: strerror(errno)))")
    }
}

/// Writes all of `bytes` to standard output.
func writeStandardOutput(_ bytes: UnsafeRawBufferPointer) throws {
    try writeAll(bytes, to: 1, name: "standard output")
}

/// Writes all of `bytes` to the file descriptor `fd` (`name` in errors).
func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, name: String) throws {
    var offset = 0
    while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n > 0 { offset += n; continue }
        if n < 0 && errno == EINTR { continue }
        throw ToolError(message: "error: cannot write \(name): \(String(cString: strerror(errno)))")
    }
}
