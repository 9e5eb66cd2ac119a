/// Writes compact JSON text directly, exactly as ``LiquidValue/jsonString`` would serialize
/// the same object built first as a ``LiquidValue`` (keys in the order written, floats as
/// Ruby prints them), without building it.
///
/// ```swift
/// var json = JSONTextWriter()
/// json.beginObject()
/// json.key("title"); json.string("Hi Ana")
/// json.key("badge"); json.value(.int(3))
/// json.endObject()
/// json.text   // {"title":"Hi Ana","badge":3}
/// ```
public struct JSONTextWriter {
    /// The UTF-8 text so far.
    public private(set) var bytes: [UInt8] = []
    /// One bit per open container: set once it holds an element (a comma comes next).
    private var filled: UInt64 = 0
    private var depth = 0
    private var afterKey = false

    /// An empty writer.
    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The text written.
    public var text: String { bytes.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }

    private mutating func separator() {
        if afterKey { afterKey = false; return }
        guard depth > 0 else { return }
        let bit: UInt64 = 1 << UInt64(min(depth, 63))
        if filled & bit != 0 { bytes.append(0x2C) } else { filled |= bit }
    }

    /// Opens an object.
    public mutating func beginObject() {
        separator()
        bytes.append(0x7B)
        depth += 1
        filled &= ~(1 << UInt64(min(depth, 63)))
    }

    /// Closes the innermost object.
    public mutating func endObject() {
        depth -= 1
        bytes.append(0x7D)
    }

    /// Writes a key; the next value written is its value.
    public mutating func key(_ name: String) {
        separator()
        writeJSONStringBytes(name, to: &bytes)
        bytes.append(0x3A)
        afterKey = true
    }

    /// Writes a string value.
    public mutating func string(_ text: String) {
        separator()
        writeJSONStringBytes(text, to: &bytes)
    }

    /// Writes a string value given as UTF-8 bytes.
    public mutating func string(utf8 text: UnsafeBufferPointer<UInt8>) {
        separator()
        writeJSONStringUTF8(text, to: &bytes)
    }

    /// Writes `null`.
    public mutating func null() {
        separator()
        bytes += [0x6E, 0x75, 0x6C, 0x6C]
    }

    /// Writes a value that is already JSON text (as ``LiquidValue/jsonString`` gives it), as is.
    public mutating func raw(_ json: String) {
        // (Not through `raw(bytes:)`: sharing that byte-append specialization made the
        // optimizer stop inlining the render path's own appends, ~5 % on field renders.)
        separator()
        var json = json
        json.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Writes bytes that are already JSON text, as is.
    public mutating func raw<Bytes: Collection<UInt8>>(bytes json: Bytes) {
        separator()
        if json.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil { bytes.append(contentsOf: json) }
    }

    /// Ends a line of JSON lines (NDJSON): a newline, and the next value starts a new document.
    public mutating func endLine() {
        precondition(depth == 0, "a JSON line ends outside any object or array")
        bytes.append(0x0A)
        afterKey = false
    }

    /// A point in the writing to come back to with ``rewind(to:)``.
    public struct Mark: Sendable {
        let count: Int, filled: UInt64, depth: Int, afterKey: Bool
    }

    /// The current point.
    public var mark: Mark { Mark(count: bytes.count, filled: filled, depth: depth, afterKey: afterKey) }

    /// Drops everything written since `mark`, as if it had not been written.
    public mutating func rewind(to mark: Mark) {
        bytes.removeSubrange(min(mark.count, bytes.count)...)
        (filled, depth, afterKey) = (mark.filled, mark.depth, mark.afterKey)
    }

    /// Empties the writer, keeping its capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        filled = 0
        depth = 0
        afterKey = false
    }

    /// Writes any value, serialized as ``LiquidValue/jsonString`` does.
    public mutating func value(_ value: LiquidValue) {
        separator()
        value.writeJSONBytes(to: &bytes)
    }
}
