import ArgumentParser
import Foundation
import Liquid
import Personalization
import PushPayload

extension PushLiquidCommand {
    struct Preview: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a campaign as a person sees it: title, subtitle, body, key-value pairs and the payload's size.",
            discussion: """
                With no arguments it previews the bundled learning-progress example for Profiles/ana.json. \
                Promotion codes show the code a send would give the recipient; a preview never uses one. \
                Warnings (unknown filters, Connected Content calls without an answer) go to standard error.

                Exit codes: 0 rendered, 3 aborted, 1 template or data error, 2 usage error.
                """
        )

        @OptionGroup var options: RecipientOptions

        func run() throws {
            let compiled = try options.compiledCampaign()
            let (document, profileName) = try options.document(for: compiled)
            let platform = options.platform.platform
            // What check says (warnings here: the render goes on), then what the render warned
            // about, on standard error.
            var warnings = compiled.checkDiagnostics().map { var d = $0; d.severity = .warning; return d }
            let result = compiled.render(document, platform: platform, warnings: &warnings)
            for warning in warnings { printError(warning.description) }
            output(PreviewPrinter.render(campaign: compiled.campaign, profile: profileName, document: document, platform: platform, result: result))
            switch result {
            case .rendered: break
            case .aborted: throw ExitCode(3)
            case .failed: throw ExitCode(1)
            }
        }
    }

    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render a campaign's payload JSON for one recipient on standard output.",
            discussion: """
                Warnings (unknown filters, Connected Content calls without an answer) go to standard error, \
                and so do the message's {% message_extras %} pairs (message_extras: {...}), which Braze sends \
                beside the payload; --result prints them, with the payload, as one JSON object. A \
                {% promotion('list') %} code is handed out (recorded in PromotionCodes/LIST.used before the \
                payload is printed), unless --dry-run.

                Exit codes: 0 rendered, 3 aborted (the reason on standard error), 1 template or data error \
                (or output that could not be written), 2 usage error.
                """
        )

        @OptionGroup var options: RecipientOptions

        @Flag(name: .long, help: "Indent the JSON.")
        var pretty = false

        @Flag(name: .long, help: "Hand promotion codes out in memory only: the payload shows the code a send would give, and none is used.")
        var dryRun = false

        @Option(name: .long, help: "The folder of the records of promotion codes handed out (default: PromotionCodes/ itself).")
        var promotionLedger: String?

        @Flag(name: .long, help: "Print the whole result as JSON instead of the payload: {\"status\", \"bytes\", \"payload\", \"message_extras\"} (or the abort or failure), exit codes as without it.")
        var result = false

        func run() throws {
            let compiled = try options.compiledCampaign(promotionCodes: dryRun ? .dryRun : .handOut(ledger: promotionLedger.map { URL(fileURLWithPath: $0) }))
            let (document, _) = try options.document(for: compiled)
            // What check says (warnings here: the render goes on), then what the render warned
            // about, on standard error.
            var warnings = compiled.checkDiagnostics().map { var d = $0; d.severity = .warning; return d }
            let rendered = compiled.render(document, platform: options.platform.platform, warnings: &warnings)
            for warning in warnings { printError(warning.description) }
            if result {
                output(pretty ? rendered.json.prettyJSONString : rendered.json.jsonString)
            }
            switch rendered {
            case .rendered(let payload):
                if result { break }
                output(pretty ? payload.json.prettyJSONString : payload.serialized)
                // Beside the payload, never in it: what the send event carries.
                if !payload.messageExtras.isEmpty { printError("message_extras: \(payload.messageExtrasJSON.jsonString)") }
            case .aborted(let reason, let field):
                printError("aborted in \(field): \(reason ?? "abort_message called")")
                throw ExitCode(3)
            case .failed(let error):
                printError(error.description)
                throw ExitCode(1)
            }
        }
    }
}

/// Draws a notification preview in the terminal.
enum PreviewPrinter {
    static func render(campaign: Campaign, profile: String, document: RenderContextDocument, platform: Platform, result: PayloadResult) -> String {
        var lines: [String] = []
        let who = document.externalID.map { " (\($0))" } ?? ""
        lines.append("\(campaign.name) · \(platform == .ios ? "iOS" : "Android") · profile \(profile)\(who)")
        switch result {
        case .aborted(let reason, let field):
            lines.append("ABORTED in \(field): \(reason ?? "abort_message called") — this recipient gets no message.")
        case .failed(let error):
            lines.append("FAILED: \(error)")
        case .rendered(let payload):
            let fields = Dictionary(payload.fields.map { ($0.name, $0.text) }, uniquingKeysWith: { a, _ in a })
            var card = [fields["title"] ?? ""]
            if platform == .ios, let s = fields["subtitle"], !s.isEmpty { card.append(s) }
            card.append(contentsOf: (fields["body"] ?? "").components(separatedBy: "\n"))
            // Widths in terminal columns: East Asian wide characters and most emoji take two.
            let width = min(60, max(30, card.map(columns).max() ?? 0))
            lines.append("┌" + String(repeating: "─", count: width + 2) + "┐")
            for (i, text) in card.enumerated() {
                for (n, chunk) in wrap(text, width).enumerated() {
                    lines.append("│ " + chunk + String(repeating: " ", count: max(0, width - columns(chunk))) + " │" + (i == 0 && n == 0 ? "  title" : ""))
                }
            }
            lines.append("└" + String(repeating: "─", count: width + 2) + "┘")
            let kvs = payload.fields.filter { $0.name.hasPrefix("key_value_pairs.") }
            if !kvs.isEmpty {
                lines.append("Key-value pairs:")
                let keyWidth = kvs.map { columns($0.key) }.max() ?? 0
                for kv in kvs { lines.append("  " + kv.key + String(repeating: " ", count: keyWidth - columns(kv.key)) + "  " + kv.text) }
            }
            if let kind = campaign.contentView {
                lines += ContentViewPreview.render(kind, payload: payload, profile: document.profile)
            }
            if !payload.messageExtras.isEmpty {
                lines.append("Message extras (sent beside the payload, to the send event):")
                let keyWidth = payload.messageExtras.map { columns($0.key) }.max() ?? 0
                for e in payload.messageExtras { lines.append("  " + e.key + String(repeating: " ", count: keyWidth - columns(e.key)) + "  " + e.value) }
            }
            let limit = platform.sizeLimit
            lines.append("Payload: \(payload.byteCount) of \(limit) bytes (\(payload.byteCount * 100 / limit)%)")
        }
        return lines.joined(separator: "\n")
    }

    /// `text` in lines of at most `width` terminal columns, broken at spaces (a word wider than
    /// a line is cut between characters).
    static func wrap(_ text: String, _ width: Int) -> [String] {
        if columns(text) <= width { return [text] }
        var out: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty && columns(line) + 1 + columns(word) > width {
                out.append(line)
                line = ""
            }
            if columns(word) > width {
                var piece = ""
                for character in word {
                    if columns(piece) + columns(String(character)) > width {
                        out.append(piece)
                        piece = ""
                    }
                    piece.append(character)
                }
                line = piece
            } else {
                line += line.isEmpty ? String(word) : " " + word
            }
        }
        if !line.isEmpty { out.append(line) }
        return out
    }
}
