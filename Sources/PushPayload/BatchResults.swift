import Foundation
import Liquid

/// A batch's results file, read back to resume an interrupted run.
///
/// A run killed at any moment leaves whole result lines, each naming its input line, followed
/// by at most one partial line (the write that was under way). ``resume(at:)`` drops that
/// partial line and says where to go on.
public enum BatchResults {
    /// Why a results file cannot be resumed.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong with it.
        public var message: String
        public var description: String { message }
    }

    /// Makes the results file at `url` end with its last whole line (a partial line after it
    /// is cut off) and returns the input line to resume from: one after the last whole
    /// result's `line`, or 1 when there is no file or no whole line yet. The file's last whole
    /// line must be a batch result (a JSON object with an integer `line`).
    public static func resume(at url: URL) throws -> Int {
        let fd = open(url.path, O_RDWR)
        if fd < 0 {
            if errno == ENOENT { return 1 }
            throw Failure(message: "cannot open \(url.path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let size = lseek(fd, 0, SEEK_END)
        guard size >= 0 else { throw Failure(message: "cannot read \(url.path): \(String(cString: strerror(errno)))") }
        // The file's end, read backwards a block at a time (it can be large) until it holds
        // the last newline and the one before it, or the file's start.
        var tail: [UInt8] = []
        var tailStart = Int(size)
        func newlines() -> [Int] { tail.indices.filter { tail[$0] == 0x0A }.suffix(2).map { $0 + tailStart } }
        while tailStart > 0 && newlines().count < 2 {
            let start = max(0, tailStart - (1 << 16))
            var chunk = [UInt8](repeating: 0, count: tailStart - start)
            guard pread(fd, &chunk, chunk.count, off_t(start)) == chunk.count else {
                throw Failure(message: "cannot read \(url.path): \(String(cString: strerror(errno)))")
            }
            tail = chunk + tail
            tailStart = start
        }
        let found = newlines()
        guard let lastNewline = found.last else {
            // No whole line: start over.
            guard ftruncate(fd, 0) == 0 else { throw Failure(message: "cannot truncate \(url.path): \(String(cString: strerror(errno)))") }
            return 1
        }
        if lastNewline + 1 < Int(size) {
            guard ftruncate(fd, off_t(lastNewline + 1)) == 0 else {
                throw Failure(message: "cannot truncate \(url.path): \(String(cString: strerror(errno)))")
            }
        }
        let lineStart = found.count == 2 ? found[0] + 1 : 0
        let lineBytes = Array(tail[(lineStart - tailStart)..<(lastNewline - tailStart)])
        var parser = JSONValueParser(bytes: lineBytes)
        guard case .int(let line)? = try? parser.parse().property("line"), line >= 1 else {
            throw Failure(message: "\(url.path): its last line is not a batch result (a JSON object with \"line\"); not resuming into it")
        }
        return line + 1
    }
}
