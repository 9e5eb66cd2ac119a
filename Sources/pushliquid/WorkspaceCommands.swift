import ArgumentParser
import Foundation
import Liquid
import Personalization
import PushPayload

extension PushLiquidCommand {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check campaigns: parse every field, list the attributes each reads, flag unknown filters and attributes no profile has.",
            discussion: "Exits 1 when a campaign has an error (syntax, unknown tag or filter); missing attributes are warnings."
        )

        @Argument(help: "Campaign files or names (default: every campaign in Templates/).")
        var campaigns: [String] = []

        @Option(name: .long, help: "The campaigns folder.")
        var templates = "Templates"

        @Option(name: .long, help: "The profiles folder.")
        var profiles = "Profiles"

        func run() throws {
            let templatesURL = URL(fileURLWithPath: templates)
            var urls: [URL] = []
            if campaigns.isEmpty {
                do { urls = try Workspace.campaignFiles(in: templatesURL) } catch { throw ToolError.usage("cannot list \(templates)/: \(error)") }
            } else {
                for c in campaigns {
                    var options = try RecipientOptions.parse([c, "--templates", templates])
                    options.campaign = c
                    urls.append(try options.campaignURL())
                }
            }
            let profileValues: [(String, LiquidValue)]
            do { profileValues = try Workspace.profiles(in: URL(fileURLWithPath: profiles)) } catch let e as CampaignError {
                throw ToolError(message: e.description)
            } catch { profileValues = [] }
            let dialect = BrazeDialect(contentBlocks: DirectoryContentBlocks(directory: templatesURL.appendingPathComponent("content_blocks")))
            var errors = 0
            for url in urls {
                let text = try readText(url.path)
                let compiled: CompiledCampaign
                do {
                    let campaign = try Campaign(yaml: text, file: url.relativePath)
                    compiled = try CompiledCampaign(campaign, dialect: dialect, fileText: text, recordAttributes: true)
                } catch let error as CampaignError {
                    print(error.description)
                    errors += 1
                    continue
                }
                print("\(url.relativePath): \(compiled.campaign.name)")
                for (name, reads) in compiled.attributes where !reads.isEmpty {
                    print("  \(name) reads: \(reads.map(\.description).joined(separator: ", "))")
                }
                for (name, template) in compiled.templates {
                    for filter in template.unknownFilters {
                        print("  error: \(name): unknown filter '\(filter)'")
                        errors += 1
                    }
                }
                if !profileValues.isEmpty {
                    for attr in compiled.attributesMissing(from: profileValues.map(\.1)) {
                        print("  warning: \(attr) is missing from every profile in \(profiles)/")
                    }
                }
            }
            print(errors == 0 ? "\(urls.count) campaign(s) checked, no errors" : "\(urls.count) campaign(s) checked, \(errors) error(s)")
            if errors > 0 { throw ExitCode(1) }
        }
    }

    struct Batch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render a campaign for every render context document on standard input (NDJSON).",
            discussion: """
                Writes one JSON line per input line, in input order: {"line", "external_id", "status": \
                "rendered"|"aborted"|"failed", "payload"|"reason"|"error"}. A malformed line is a failed line. \
                Uses every core; memory does not grow with the input. Progress goes to standard error when it is \
                a terminal; a summary always ends the run there.
                """
        )

        @Argument(help: "A campaign file or a name in Templates/.")
        var campaign: String

        @Option(name: .long, help: "ios or android.")
        var platform: PlatformArgument = .ios

        @Option(name: .long, help: "The campaigns folder.")
        var templates = "Templates"

        @Flag(name: .long, help: "Make real Connected Content requests.")
        var online = false

        func run() throws {
            var options = try RecipientOptions.parse([campaign, "--templates", templates])
            options.online = online
            let compiled = try options.compiledCampaign()
            let renderer = BatchRenderer(campaign: compiled, platform: platform.platform)
            let showProgress = isatty(2) == 1
            let start = Date()
            let summary = try renderer.run(
                read: { buffer in try readStandardInput(into: buffer) },
                write: { bytes in try writeStandardOutput(bytes) },
                progress: { s in
                    if showProgress { FileHandle.standardError.write(Data("\rbatch: \(s.lines) lines...".utf8)) }
                })
            let seconds = max(Date().timeIntervalSince(start), 1e-9)
            let fields = compiled.templates.count
            if showProgress { FileHandle.standardError.write(Data("\r".utf8)) }
            printError(String(format: "batch: %d lines: %d rendered, %d aborted, %d failed in %.3f s (%.0f lines/s, %.0f field renders/s)",
                              summary.lines, summary.rendered, summary.aborted, summary.failed, seconds,
                              Double(summary.lines) / seconds, Double(summary.lines * fields) / seconds))
        }
    }

    struct Golden: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare every campaign × profile payload (iOS and Android) with Tests/Golden/; --update rewrites them.",
            discussion: "Exits 1 when a golden file differs or is missing (without --update)."
        )

        @Flag(name: .long, help: "Rewrite the golden files (and remove stale ones).")
        var update = false

        @Option(name: .long, help: "The repository root.")
        var root = "."

        func run() throws {
            let golden = GoldenFiles(root: URL(fileURLWithPath: root))
            do {
                if update {
                    let changed = try golden.update()
                    print("golden: \(changed) file(s) written or removed")
                    return
                }
                let entries = try golden.entries()
                var bad = 0
                for entry in entries where !entry.matches {
                    bad += 1
                    print(entry.expected == nil ? "MISSING \(entry.path.relativePath)" : "DIFFERS \(entry.path.relativePath)")
                    if let expected = entry.expected { print(firstDifference(expected, entry.actual)) }
                }
                let stale = golden.staleFiles(entries)
                for s in stale { print("STALE \(s.relativePath)") }
                print("\(entries.count - bad) matched, \(bad + stale.count) differ")
                if bad + stale.count > 0 { throw ExitCode(1) }
            } catch let e as CampaignError {
                throw ToolError(message: e.description)
            }
        }

        func firstDifference(_ a: String, _ b: String) -> String {
            let x = a.components(separatedBy: "\n"), y = b.components(separatedBy: "\n")
            for i in 0..<max(x.count, y.count) where (i < x.count ? x[i] : nil) != (i < y.count ? y[i] : nil) {
                return "  line \(i + 1):\n  - \(i < x.count ? x[i] : "")\n  + \(i < y.count ? y[i] : "")"
            }
            return ""
        }
    }
}
