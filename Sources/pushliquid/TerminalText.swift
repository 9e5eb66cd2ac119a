// Widths of text on a terminal, for the preview box and check's carets.

/// Terminal columns a scalar takes: 2 for East Asian wide and full-width characters, 0 for
/// combining marks, 1 otherwise.
func displayWidth(_ scalar: Unicode.Scalar) -> Int {
    let v = scalar.value
    if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark || v == 0x200D { return 0 }
    if (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v) || (0x3400...0x4DBF).contains(v)
        || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v)
        || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v)
        || (0x1F300...0x1F64F).contains(v) || (0x1F900...0x1F9FF).contains(v) || (0x20000...0x3FFFD).contains(v) {
        return 2
    }
    return 1
}

/// The terminal columns `text` takes (see ``displayWidth(_:)``).
func columns<S: StringProtocol>(_ text: S) -> Int {
    text.unicodeScalars.reduce(0) { $0 + displayWidth($1) }
}
