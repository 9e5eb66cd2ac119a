import Foundation

/// Finds and runs the package's built executables from tests.
public enum BuiltProducts {
    /// The executable `name` beside the test bundle (or in `.build/debug` under `repositoryRoot`).
    public static func url(_ name: String, repositoryRoot: URL) -> URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug/\(name)")
    }

    /// Runs `executable` with `arguments` in `directory`, feeding `stdin`; returns the exit
    /// status and what it printed.
    public static func run(_ executable: URL, _ arguments: [String], in directory: URL, stdin: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe(), inp = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inp
        try process.run()
        let writer = inp.fileHandleForWriting
        let input = Data((stdin ?? "").utf8)
        // Feed stdin on its own thread so a large input cannot deadlock against full pipes.
        let feeder = Thread {
            writer.write(input)
            try? writer.close()
        }
        feeder.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}
