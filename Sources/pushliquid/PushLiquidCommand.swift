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
            4 batch finished with failed lines. Each command's --help lists its own.

            Shell completion: pushliquid --generate-completion-script bash|zsh|fish.
            """,
        version: "pushliquid \(pushLiquidVersion)",
        subcommands: [Preview.self, Render.self, Check.self, Batch.self, StudioCommand.self, Golden.self, Conformance.self, Bench.self, RenderTemplate.self],
        defaultSubcommand: nil
    )

    /// Runs the command; usage errors exit 2, template and data errors 1. Output that could
    /// not be written (a full disk, `> /dev/full`) is an error, never a silent success.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
            try flushStandardOutput()
        } catch let code as ExitCode {
            finish(code.rawValue)
        } catch let error as ToolError {
            printError(error.message)
            finish(error.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                finish(0)
            }
            if code == .validationFailure {
                printError(fullMessage(for: error))
                finish(2)
            }
            printError(errorLine(for: error))
            finish(1)
        }
    }

    /// Exits with `status`, or 1 when what was printed could not be written.
    static func finish(_ status: Int32) -> Never {
        do { try flushStandardOutput() } catch let error as ToolError {
            printError(error.message)
            Foundation.exit(status == 0 ? 1 : status)
        } catch {}
        Foundation.exit(status)
    }
}

/// Flushes the commands' buffered output (see ``output(_:terminator:)``); a failed write,
/// earlier or now, is an error.
func flushStandardOutput() throws {
    try StandardOutput.flush()
}

/// Writes a command's result to standard output (as `print` does, but a failed write, as to a
/// full disk or `/dev/full`, is an error at exit instead of lost without a word).
func output(_ text: String = "", terminator: String = "\n") {
    StandardOutput.write(text + terminator)
}

/// Buffered standard output, written with `write(2)` (only the main thread, where commands
/// run, uses it).
enum StandardOutput {
    nonisolated(unsafe) private static var buffer: [UInt8] = []
    nonisolated(unsafe) private static var failure: ToolError?
    nonisolated(unsafe) private static var failed = false
    private static let interactive = isatty(1) != 0

    static func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        // On a terminal each write shows at once, in order with what goes to standard error.
        if buffer.count >= 1 << 16 || interactive { try? flush() }
    }

    /// Writes what is buffered. The first failed write is thrown once; what comes after it is
    /// dropped (the output is already incomplete, and the error says so).
    static func flush() throws {
        if !failed, !buffer.isEmpty {
            do { try buffer.withUnsafeBytes { try writeStandardOutput($0) } } catch let error as ToolError {
                failed = true
                failure = error
            }
        }
        buffer.removeAll(keepingCapacity: true)
        if let error = failure {
            failure = nil
            throw error
        }
    }
}

/// One `error: ...` line for an error: errors that describe themselves as diagnostics
/// (`file:line:column: error: ...`, `error: ...`) are printed as they are.
func errorLine(for error: any Error) -> String {
    let text = String(describing: error)
    return text.hasPrefix("error: ") || text.contains(": error: ") ? text : "error: " + text
}

/// The version `--version` prints (the package's release tag, without the `v`).
let pushLiquidVersion = "0.18.0"

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

/// The most a file given on the command line may hold (a template, a profile, a campaign).
let maxInputFileBytes = 64 << 20

/// Reads a file's bytes: `-` is standard input, and pipes, `/dev/stdin` and `<(...)` work as
/// files do. A file that cannot be opened is a usage error naming the system's reason.
func readBytes(_ path: String) throws -> [UInt8] {
    let fd = path == "-" ? 0 : open(path, O_RDONLY)
    guard fd >= 0 else {
        throw ToolError.usage("cannot read '\(path)': \(String(cString: strerror(errno)))")
    }
    defer { if fd != 0 { close(fd) } }
    // A regular file is read straight into a buffer of its size; a pipe in growing steps.
    var info = stat()
    let expected = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
    guard expected <= maxInputFileBytes else {
        throw ToolError(message: "error: '\(path)' is larger than \(maxInputFileBytes >> 20) MiB")
    }
    var bytes: [UInt8] = []
    var ended = false
    /// Reads into `bytes` up to `want` more bytes (fewer at the end of the input).
    func readMore(_ want: Int) throws {
        var failure: Int32 = 0
        let before = bytes.count
        let more = try [UInt8](unsafeUninitializedCapacity: want) { buffer, initialized in
            var count = 0
            while count < want {
                let n = read(fd, buffer.baseAddress! + count, want - count)
                if n == 0 { ended = true; break }
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                count += n
            }
            initialized = count
            if failure != 0 { throw ToolError(message: "error: cannot read '\(path)': \(String(cString: strerror(failure)))") }
        }
        if before == 0 { bytes = more } else { bytes += more }
    }
    // A regular file in one read of its size (and one more byte, to see that it ended); a pipe
    // in steps that double, never past the limit and one byte.
    var step = max(expected + 1, 1 << 16)
    while !ended {
        guard bytes.count <= maxInputFileBytes else {
            throw ToolError(message: "error: '\(path)' is larger than \(maxInputFileBytes >> 20) MiB")
        }
        try readMore(min(step, maxInputFileBytes + 1 - bytes.count))
        step = max(step, bytes.count)
    }
    guard bytes.count <= maxInputFileBytes else {
        throw ToolError(message: "error: '\(path)' is larger than \(maxInputFileBytes >> 20) MiB")
    }
    return bytes
}

/// Reads a text file (`-` is standard input): a leading UTF-8 byte order mark is dropped, and
/// invalid UTF-8 is an error at `file:line:column`.
func readText(_ path: String) throws -> String {
    let bytes = try readBytes(path)
    do {
        return try SourceText.decode(bytes, name: path == "-" ? "<stdin>" : path)
    } catch let error as LiquidError {
        throw ToolError(message: error.description)
    }
}

/// Reads a JSON file (`-` is standard input) that must hold an object (`what` names it in
/// errors, "the data" say); syntax errors are `file:line:column: error: ...`.
func readJSONObject(_ path: String, what: String) throws -> LiquidValue {
    let text = try readText(path)
    let name = path == "-" ? "<stdin>" : path
    let value: LiquidValue
    do { value = try JSONValueParser.parse(text) } catch let e as JSONValueParser.SyntaxError {
        throw ToolError(message: "\(name):\(e.line):\(e.column): error: invalid JSON: \(e.message)")
    }
    guard case .object = value else {
        throw ToolError(message: "\(name):1:1: error: \(what) must be a JSON object, not \(jsonKind(value))")
    }
    return value
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

/// What a JSON value is, for errors: "an array", "a string"...
func jsonKind(_ value: LiquidValue) -> String {
    switch value {
    case .nil: return "null"
    case .bool: return "a boolean"
    case .int, .bigInt, .double: return "a number"
    case .string: return "a string"
    case .array, .range: return "an array"
    case .object, .drop: return "an object"
    }
}
