/// A position in a template's source.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// 1-based column, counted in characters (extended grapheme clusters) from the start of the line.
    public var column: Int

    /// A location at `line` and `column`, both 1-based.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Computes the line and column of a UTF-8 byte offset in `source`.
    public init(utf8Offset offset: Int, in source: String) {
        var line = 1
        var lineStart = source.utf8.startIndex
        let end = source.utf8.index(source.utf8.startIndex, offsetBy: min(max(0, offset), source.utf8.count))
        var i = source.utf8.startIndex
        while i < end {
            if source.utf8[i] == UInt8(ascii: "\n") {
                line += 1
                lineStart = source.utf8.index(after: i)
            }
            i = source.utf8.index(after: i)
        }
        let column = source[lineStart..<end].count + 1
        self.init(line: line, column: column)
    }

    public var description: String { "\(line):\(column)" }
}
