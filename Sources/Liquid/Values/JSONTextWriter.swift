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

    /// Writes `null`.
    public mutating func null() {
        separator()
        bytes += [0x6E, 0x75, 0x6C, 0x6C]
    }

    /// Writes a value that is already JSON text (as ``LiquidValue/jsonString`` gives it), as is.
    public mutating func raw(_ json: String) {
        separator()
        var json = json
        json.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Writes any value, serialized as ``LiquidValue/jsonString`` does.
    public mutating func value(_ value: LiquidValue) {
        separator()
        value.writeJSONBytes(to: &bytes)
    }
}
