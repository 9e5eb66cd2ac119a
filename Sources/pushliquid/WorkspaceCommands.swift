import ArgumentParser
import Foundation
import Liquid
import Personalization
import PushPayload

extension PushLiquidCommand {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check campaigns: everything that will fail, or not be what was meant, before any send.",
            discussion: """
                Parses every field, lists the attributes each reads, and reports each problem as \
                file:line:column: error|warning: message, with the line and a caret under the place: \
                syntax errors, unknown filters and namespaces ("did you mean"), filters given the wrong \
                number of arguments, missing content blocks, malformed ${...} references, $json: values \
                and ios.badge values that cannot work, abort_message without parentheses, profiles that \
                do not read, and attributes no profile has. Every campaign is checked, whatever an \
                earlier one held. --format json prints one JSON array of the problems instead.

                Exit codes: 0 no errors (warnings allowed), 1 some error, 2 usage error.
                """
        )

        @Argument(help: "Campaign files or names (default: every campaign in Templates/).")
        var campaigns: [String] = []

        @Option(name: .long, help: "The campaigns folder (default: the nearest Templates/ here or above; a campaign file's own folder).")
        var templates: String?

        @Option(name: .long, help: "The profiles folder (default: the nearest Profiles/ beside the campaigns folder or above it).")
        var profiles: String?

        @Option(name: .long, help: "text (default) or json.")
        var format: CheckFormat = .text

        enum CheckFormat: String, ExpressibleByArgument, CaseIterable { case text, json }

        func run() throws {
            var urls: [URL] = []
            if campaigns.isEmpty {
                let folder: URL
                if let templates {
                    folder = URL(fileURLWithPath: templates)
                } else if let found = Workspace.folders(around: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) {
                    folder = found.templates
                } else {
                    throw ToolError.usage("no Templates/ folder here or above: run in a workspace, give --templates, or name campaign files")
                }
                guard Workspace.isDirectory(folder) else { throw ToolError.usage("--templates '\(displayPath(folder))' is not a folder") }
                do { urls = try Workspace.campaignFiles(in: folder) } catch {
                    throw ToolError(message: "error: cannot list \(displayPath(folder))/: \((error as NSError).localizedDescription)")
                }
            } else {
                for c in campaigns {
                    var options = try RecipientOptions.parse([c] + (templates.map { ["--templates", $0] } ?? []))
                    options.campaign = c
                    urls.append(try options.campaignURL())
                }
            }
            let printer = DiagnosticPrinter(json: format == .json)
            var profilesByFolder: [URL: [(String, LiquidValue)]] = [:]
            for url in urls {
                var options = try RecipientOptions.parse([url.path] + (templates.map { ["--templates", $0] } ?? []) + (profiles.map { ["--profiles", $0] } ?? []))
                options.campaign = url.path
                let folders = try options.folders()
                // Every profile that reads, once per folder; a bad one is an error of its own.
                var profileValues: [(String, LiquidValue)] = []
                if let folder = folders.profiles {
                    if let known = profilesByFolder[folder] {
                        profileValues = known
                    } else {
                        let (good, bad) = Workspace.profilesAndErrors(in: folder)
                        for error in bad { printer.add(error) }
                        profilesByFolder[folder] = good
                        profileValues = good
                    }
                }
                let file = displayPath(url)
                let text: String
                do { text = try readText(url.path) } catch let error as ToolError {
                    printer.add(CampaignDiagnostic(.error, file: file, location: nil, field: "", message: error.message.replacingOccurrences(of: "error: ", with: "")))
                    continue
                }
                printer.fileText[file] = text
                let compiled: CompiledCampaign
                do {
                    let campaign = try Campaign(yaml: text, file: file)
                    compiled = try CompiledCampaign(campaign, dialect: try options.dialect(promotionCodes: .dryRun), fileText: text, recordAttributes: true)
                } catch let error as CampaignError {
                    printer.add(error)
                    continue
                }
                printer.heading("\(file): \(compiled.campaign.name)")
                for (name, reads) in compiled.attributes where !reads.isEmpty {
                    printer.heading("  \(name) reads: \(reads.map(\.description).joined(separator: ", "))")
                }
                let lists = compiled.promotionListsRead
                if !lists.isEmpty, let ledger = compiled.dialect.promotionCodes as? PromotionCodeLedger {
                    printer.heading("  promotion codes: " + lists.map { name in
                        (try? ledger.remaining(in: name)).map { "\(name) (\($0) left)" } ?? "\(name) (not found)"
                    }.joined(separator: ", "))
                }
                let catalogs = compiled.catalogsRead
                if !catalogs.isEmpty {
                    printer.heading("  catalogs read: " + catalogs.map { name in
                        let found = (try? compiled.dialect.catalogs?.catalog(named: name)) ?? nil
                        return found.map { "\(name) (\($0.items.count) items)" } ?? "\(name) (not found)"
                    }.joined(separator: ", "))
                }
                let diagnostics = compiled.checkDiagnostics()
                for diagnostic in diagnostics { printer.add(diagnostic) }
                if let folder = folders.profiles, !profileValues.isEmpty {
                    for attr in compiled.attributesMissing(from: profileValues.map(\.1)) {
                        let (field, location) = compiled.firstUse(of: attr.description) ?? ("", nil)
                        // (Said once: a reference already warned about is not repeated.)
                        if let location, diagnostics.contains(where: { $0.location == location }) { continue }
                        printer.add(CampaignDiagnostic(.warning, file: file, location: location, field: field,
                                                       message: "\(attr) is missing from every profile in \(displayPath(folder))/"))
                    }
                } else {
                    printer.add(CampaignDiagnostic(.warning, file: file, location: nil, field: "",
                                                   message: "no profiles to check attributes against (no Profiles/ folder with profiles beside or above \(displayPath(folders.templates)))"))
                }
            }
            printer.finish(summary: printer.errors == 0 ? "\(urls.count) campaign(s) checked, no errors" + (printer.warnings > 0 ? ", \(printer.warnings) warning(s)" : "")
                                                  : "\(urls.count) campaign(s) checked, \(printer.errors) error(s), \(printer.warnings) warning(s)")
            if printer.errors > 0 { throw ExitCode(1) }
        }
    }

    struct Batch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render a campaign for every render context document on standard input (NDJSON).",
            discussion: """
                Writes exactly one JSON result line per input line, in input order: {"line": N, "external_id", \
                "status": "rendered"|"aborted"|"failed"|"skipped", then "payload"|"reason"|"error"}. "line" is \
                the input line's number (from 1). A blank line (empty, or only spaces, tabs and a carriage \
                return) gives {"line": N, "status": "skipped", "reason": "blank line"}. A malformed line, a line \
                longer than --max-line-bytes, or a recipient whose render fails (an error, a resource limit) \
                gives a "failed" result with its reason, and the run goes on. Uses every core; memory does not \
                grow with the input.

                A run killed at any moment leaves whole result lines, followed by at most one partial line. \
                To go on: --from-line (one past the "line" of the last whole result), or --output FILE \
                --resume, which cuts a partial last line off FILE and appends from where it ended; results are \
                numbered as in the first run.

                --numbered reads lines of NUMBER<TAB>DOCUMENT, NUMBER the line's place in a whole segment \
                of which this input is a part (the Spark job in deploy/spark feeds each partition so), and \
                numbers each result NUMBER; --max-line-bytes is then the document's limit. A line without the \
                prefix ends the run (exit 1).

                Progress goes to standard error when it is a terminal; a summary always ends the run there. \
                Exit status: 0 when every line rendered, aborted or was skipped; 4 when the run finished but \
                some lines failed (0 with --allow-failures); 1 when the run could not finish (an unreadable \
                campaign, a write error); 2 for a usage error.
                """
        )

        @Argument(help: "A campaign file or a name in Templates/.")
        var campaign: String

        @Option(name: .long, help: "ios or android.")
        var platform: PlatformArgument = .ios

        @Option(name: .long, help: "The campaigns folder (default: the campaign file's folder; for a name, the nearest Templates/ here or above).")
        var templates: String?

        @Flag(name: .long, help: "Make real Connected Content requests.")
        var online = false

        @Option(name: .long, help: "The catalogs folder (default: the nearest Catalogs/ beside the campaigns folder or above it).")
        var catalogs: String?

        @Option(name: .long, help: "Connected Content credentials, a JSON file (default: $PUSHLIQUID_CREDENTIALS, else the JSON in $PUSHLIQUID_CREDENTIALS_JSON).")
        var credentials: String?

        @Option(name: .long, help: "Write the results to this file instead of standard output.")
        var output: String?

        @Flag(name: .long, help: "With --output: keep the file's whole result lines and go on after the last one.")
        var resume = false

        @Option(name: .long, help: "The first input line to render (1-based); earlier lines are read and skipped without a result.")
        var fromLine: Int?

        @Option(name: .long, help: "The longest input line read, in bytes (a longer one is a failed result).")
        var maxLineBytes: Int = 4 << 20

        @Flag(name: .long, help: "Exit 0 even when some lines failed.")
        var allowFailures = false

        @Option(name: .long, help: "Threads rendering in parallel (default: one per core); 1 under a scheduler that gives each task one core, such as Spark.")
        var workers: Int?

        @Flag(name: .long, help: "Each input line is NUMBER<TAB>DOCUMENT, NUMBER its line in the whole segment: results carry it (how the Spark job feeds each partition). Not with --from-line or --resume.")
        var numbered = false

        @Flag(name: .long, help: "Hand promotion codes out in memory only: the results show the codes a run would give, and none is used.")
        var dryRun = false

        @Option(name: .long, help: "The folder of the records of promotion codes handed out (default: PromotionCodes/ itself); a folder every process of one send shares.")
        var promotionLedger: String?

        @Option(name: .long, parsing: .singleValue, help: "A campaign attribute of this send, KEY=VALUE (campaign.${KEY}: dispatch_id...), under each line's own campaign keys. Repeatable.")
        var campaignInfo: [String] = []

        @Option(name: .long, parsing: .singleValue, help: "A Canvas attribute of this send, KEY=VALUE (canvas.${KEY}: variant_name...), under each line's own canvas keys. Repeatable.")
        var canvasInfo: [String] = []

        func validate() throws {
            if resume && output == nil { throw ValidationError("--resume needs --output FILE") }
            if resume && fromLine != nil { throw ValidationError("--resume finds the line to go on from itself; leave out --from-line") }
            if let fromLine, fromLine < 1 { throw ValidationError("--from-line must be 1 or more, got \(fromLine)") }
            if maxLineBytes < 1 { throw ValidationError("--max-line-bytes must be 1 or more, got \(maxLineBytes)") }
            if numbered && (resume || fromLine != nil) { throw ValidationError("--numbered input carries its own line numbers; leave out --from-line and --resume") }
            if let workers, !(1...256).contains(workers) { throw ValidationError("--workers must be between 1 and 256, got \(workers)") }
        }

        func run() throws {
            var options = try RecipientOptions.parse([campaign] + (templates.map { ["--templates", $0] } ?? []) + (catalogs.map { ["--catalogs", $0] } ?? []))
            options.online = online
            options.credentials = credentials
            options.campaignInfo = campaignInfo
            options.canvasInfo = canvasInfo
            let compiled = try options.compiledCampaign(promotionCodes: dryRun ? .dryRun : .handOut(ledger: promotionLedger.map { URL(fileURLWithPath: $0) }))
            var firstLine = fromLine ?? 1
            var out: Int32 = 1
            if let output {
                let url = URL(fileURLWithPath: output)
                if resume {
                    do { firstLine = try BatchResults.resume(at: url) } catch let failure as BatchResults.Failure {
                        throw ToolError(message: "error: \(failure)")
                    }
                }
                out = open(output, O_WRONLY | O_CREAT | (resume ? O_APPEND : O_TRUNC), 0o644)
                if out < 0 { throw ToolError(message: "error: cannot write '\(output)': \(String(cString: strerror(errno)))") }
            }
            defer { if out != 1 { close(out) } }
            // A closed pipe is a write error to report (with the summary), not a silent death.
            signal(SIGPIPE, SIG_IGN)
            var renderer = BatchRenderer(campaign: compiled, platform: platform.platform, maxLineBytes: maxLineBytes, firstLine: firstLine,
                                         workers: workers ?? ProcessInfo.processInfo.activeProcessorCount)
            renderer.numberedInput = numbered
            let showProgress = isatty(2) == 1
            let start = Date()
            var summary = BatchRenderer.Summary()
            var failure: (any Error)?
            do {
                summary = try renderer.run(
                    read: { buffer in try readStandardInput(into: buffer) },
                    write: { bytes in try writeAll(bytes, to: out, name: output ?? "standard output") },
                    progress: { s in
                        summary = s
                        if showProgress { FileHandle.standardError.write(Data("\rbatch: \(s.lines) lines...".utf8)) }
                    })
                // (Devices and pipes, such as /dev/null, cannot be synced: EINVAL is not a failure.)
                if out != 1 && fsync(out) != 0 && errno != EINVAL {
                    throw ToolError(message: "error: cannot write '\(output!)': \(String(cString: strerror(errno)))")
                }
            } catch let error as BatchRenderer.NumberedLineError {
                failure = ToolError(message: "error: \(error)")
            } catch {
                failure = error
            }
            let seconds = max(Date().timeIntervalSince(start), 1e-9)
            let fields = compiled.templates.count
            if showProgress { FileHandle.standardError.write(Data("\r".utf8)) }
            let from = firstLine > 1 ? " from line \(firstLine)" : ""
            printError(String(format: "batch: %d lines%@: %d rendered, %d aborted, %d failed, %d skipped in %.3f s (%.0f lines/s, %.0f field renders/s)",
                              summary.lines, from, summary.rendered, summary.aborted, summary.failed, summary.skipped, seconds,
                              Double(summary.lines) / seconds, Double(summary.lines * fields) / seconds))
            if let failure {
                printError("batch: stopped before the end of the input; the results written are whole lines")
                throw failure
            }
            if summary.failed > 0 && !allowFailures { throw ExitCode(4) }
        }
    }

    struct Golden: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare every campaign × profile payload (iOS and Android) with Tests/Golden/; --update rewrites them.",
            discussion: """
                Shows, for each file that differs, the lines that changed (- golden, + now).

                Exit codes: 0 every file matches (or --update wrote them), 1 some file differs, is missing \
                or stale, or a campaign or profile does not read, 2 usage error.
                """
        )

        @Flag(name: .long, help: "Rewrite the golden files (and remove stale ones).")
        var update = false

        @Option(name: .long, help: "The repository root (default: the folder that holds the nearest Templates/ here or above).")
        var root: String?

        func run() throws {
            let rootURL: URL
            if let root {
                rootURL = URL(fileURLWithPath: root)
            } else if let found = Workspace.folders(around: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) {
                rootURL = found.templates.deletingLastPathComponent()
            } else {
                throw ToolError.usage("no Templates/ folder here or above: run in the repository, or give --root")
            }
            guard Workspace.isDirectory(rootURL.appendingPathComponent("Templates")) else {
                throw ToolError.usage("no Templates/ folder in '\(displayPath(rootURL))'")
            }
            let golden = GoldenFiles(root: rootURL)
            do {
                if update {
                    let changed = try golden.update()
                    output("golden: \(changed) file(s) written or removed")
                    return
                }
                let entries = try golden.entries()
                var bad = 0
                for entry in entries where !entry.matches {
                    bad += 1
                    output(entry.expected == nil ? "MISSING \(displayPath(entry.path))" : "DIFFERS \(displayPath(entry.path))")
                    if let expected = entry.expected { output(lineDiff(expected, entry.actual)) }
                }
                let stale = golden.staleFiles(entries)
                for s in stale { output("STALE \(displayPath(s))") }
                output("\(entries.count - bad) matched, \(bad + stale.count) differ")
                if bad + stale.count > 0 {
                    output("If the changes are intended, `pushliquid golden --update` rewrites the golden files (and removes stale ones).")
                }
                if bad + stale.count > 0 { throw ExitCode(1) }
            } catch let e as CampaignError {
                throw ToolError(message: e.description)
            }
        }

        /// The lines that differ between the golden file and the new output, as `- old` and
        /// `+ new` with a line of context around each change and line numbers (at most 40
        /// lines shown).
        func lineDiff(_ old: String, _ new: String) -> String {
            let a = old.components(separatedBy: "\n"), b = new.components(separatedBy: "\n")
            // (The table below is a × b: a file far larger than any payload shows its first
            // differing line only.)
            if a.count * b.count > 4_000_000 {
                let first = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                return "  first difference at line \(first + 1):\n  - \(first < a.count ? a[first] : "")\n  + \(first < b.count ? b[first] : "")"
            }
            // Longest common subsequence over lines (golden files are small).
            var lcs = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
            for i in stride(from: a.count - 1, through: 0, by: -1) {
                for j in stride(from: b.count - 1, through: 0, by: -1) {
                    lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
                }
            }
            enum Op { case same(String), removed(Int, String), added(Int, String) }
            var ops: [Op] = []
            var i = 0, j = 0
            while i < a.count || j < b.count {
                if i < a.count, j < b.count, a[i] == b[j] { ops.append(.same(a[i])); i += 1; j += 1 }
                else if i < a.count, j == b.count || lcs[i + 1][j] >= lcs[i][j + 1] { ops.append(.removed(i + 1, a[i])); i += 1 }
                else { ops.append(.added(j + 1, b[j])); j += 1 }
            }
            var shown: [String] = ["  (- the golden file, + what renders now; line numbers of each)"]
            for (k, op) in ops.enumerated() {
                let near = ops[max(0, k - 1)...min(ops.count - 1, k + 1)].contains { if case .same = $0 { return false } else { return true } }
                switch op {
                case .same(let line) where near: shown.append("        \(line)")
                case .same: if shown.last != "  ..." && shown.count > 1 { shown.append("  ...") }
                case .removed(let n, let line): shown.append(String(format: "  %4d - ", n) + line)
                case .added(let n, let line): shown.append(String(format: "  %4d + ", n) + line)
                }
            }
            if shown.last == "  ..." { shown.removeLast() }
            if shown.count > 40 { shown = Array(shown.prefix(40)) + ["  ... (\(shown.count - 40) more lines)"] }
            return shown.joined(separator: "\n")
        }
    }
}
