import Foundation
import Liquid
import PushPayload

/// Prints `check`'s diagnostics: as text, each `file:line:column: error|warning: message` with
/// the file's line and a caret under the column (coloured on a terminal, unless `NO_COLOR` is
/// set); or, with `json`, one JSON array at the end.
final class DiagnosticPrinter {
    let json: Bool
    /// Campaign files' text, for the excerpts.
    var fileText: [String: String] = [:]
    private(set) var errors = 0
    private(set) var warnings = 0
    private var collected: [LiquidValue] = []
    private let colour = isatty(1) != 0 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    init(json: Bool) { self.json = json }

    /// A line of information (the campaign's name, what a field reads): text format only.
    func heading(_ text: String) {
        if !json { output(text) }
    }

    func add(_ error: CampaignError) {
        add(CampaignDiagnostic(.error, file: error.file, location: error.location, field: "", message: error.message))
    }

    func add(_ diagnostic: CampaignDiagnostic) {
        if diagnostic.severity == .error { errors += 1 } else { warnings += 1 }
        if json {
            var o = LiquidObject()
            o["file"] = .string(diagnostic.file)
            o["line"] = diagnostic.location.map { .int($0.line) } ?? .nil
            o["column"] = diagnostic.location.map { .int($0.column) } ?? .nil
            o["severity"] = .string(diagnostic.severity.rawValue)
            o["field"] = diagnostic.field.isEmpty ? .nil : .string(diagnostic.field)
            o["message"] = .string(diagnostic.message)
            collected.append(.object(o))
            return
        }
        var text = diagnostic.description
        if colour {
            let label = diagnostic.severity == .error ? "\u{1B}[1;31merror:\u{1B}[0m" : "\u{1B}[1;33mwarning:\u{1B}[0m"
            text = text.replacingOccurrences(of: "\(diagnostic.severity.rawValue):", with: label, options: [], range: text.range(of: ": \(diagnostic.severity.rawValue):"))
        }
        output(text)
        if let location = diagnostic.location, let excerpt = excerpt(diagnostic.file, location) { output(excerpt) }
    }

    /// The line of `file` at `location` and a caret under its column.
    func excerpt(_ file: String, _ location: SourceLocation) -> String? {
        guard let text = fileText[file] else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard location.line >= 1, location.line <= lines.count else { return nil }
        let line = lines[location.line - 1].replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\r", with: "")
        let number = String(location.line)
        let gutter = String(repeating: " ", count: number.count)
        // Columns count Unicode scalars; the caret's indent counts display columns (East Asian
        // wide characters take two).
        let before = line.unicodeScalars.prefix(max(0, location.column - 1))
        let indent = String(repeating: " ", count: before.reduce(0) { $0 + displayWidth($1) })
        let caret = colour ? "\u{1B}[1;32m^\u{1B}[0m" : "^"
        return " \(number) | \(line)\n \(gutter) | \(indent)\(caret)"
    }

    /// The summary line (text), or the JSON array.
    func finish(summary: String) {
        if json { output(LiquidValue.array(collected).prettyJSONString) } else { output(summary) }
    }
}
