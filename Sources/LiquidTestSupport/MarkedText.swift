import Liquid

/// Source text with position markers (`1️⃣`, `2️⃣`, ...) removed and their locations kept,
/// so tests can say where an error must point: `{% if a %}1️⃣{% endfr %}`.
public struct MarkedText {
    /// The text without markers.
    public let text: String
    /// Each marker's location in ``text`` (1-based line and column, columns in characters).
    public let markers: [String: SourceLocation]

    private static let markerNames = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"]

    /// Strips the markers out of `marked`.
    public init(_ marked: String) {
        var text = ""
        var markers: [String: SourceLocation] = [:]
        var line = 1, column = 1
        for ch in marked {
            let s = String(ch)
            if Self.markerNames.contains(s) {
                markers[s] = SourceLocation(line: line, column: column)
                continue
            }
            text.append(ch)
            if ch == "\n" { line += 1; column = 1 } else { column += 1 }
        }
        self.text = text
        self.markers = markers
    }

    /// The location of the first marker.
    public var location: SourceLocation? { markers["1️⃣"] }
}
