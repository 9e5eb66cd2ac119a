import ArgumentParser
import Foundation
import PushPayload
import Studio

extension PushLiquidCommand {
    struct StudioCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "studio",
            abstract: "See every profile's push in a browser, live: iOS and Android, content views, payload sizes and problems.",
            discussion: """
                Serves a page on 127.0.0.1 only (the URL is printed) that shows, for the campaign chosen on \
                it, every profile of the workspace side by side: the iOS and Android notifications as they \
                look collapsed (each platform's lines and truncation), the expanded content view (progress \
                card, capture form with its validation and actions, a playable match game), badge, image, \
                deep link, key-value pairs, message extras and the payload's size against its cap. Aborted \
                and failed recipients show why, with the source position. Saving a campaign, content block, \
                profile, catalog or offline answer redraws the open page within a second. Promotion codes \
                are handed out in memory only; nothing is sent, nothing goes to the network.

                --export DIR writes the same pages as files instead (DIR/<campaign>.html and index.html), \
                each self-contained, for a review or a CI artifact.

                Exit codes: 0 stopped (Ctrl-C) or exported, 1 the server could not start or files could not \
                be written, 2 usage error.
                """
        )

        @Argument(help: "The workspace: a folder with Templates/ (default: the nearest one here or above).")
        var workspace: String?

        @Option(name: .long, help: "The port on 127.0.0.1 (0: any free port).")
        var port: Int = 8040

        @Option(name: .long, help: "Write the pages to this folder instead of serving them.")
        var export: String?

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, got \(port)") }
        }

        func run() throws {
            let studio = StudioWorkspace(folders: try folders())
            if let export {
                let files: [URL]
                do { files = try StudioExport.write(studio, to: URL(fileURLWithPath: export)) } catch {
                    throw ToolError(message: "error: cannot write the studio pages to '\(export)': \((error as NSError).localizedDescription)")
                }
                output("studio: \(files.count) page(s) written to \(displayPath(URL(fileURLWithPath: export)))")
                return
            }
            let server = StudioServer(workspace: studio, port: port)
            let outcome = Outcome()
            let done = DispatchSemaphore(value: 0)
            Task {
                do {
                    try await server.run { url in
                        printError("studio: \(url) (workspace \(displayPath(studio.folders.templates.deletingLastPathComponent())); Ctrl-C stops)")
                        output(url)
                        try? flushStandardOutput()
                    }
                } catch {
                    outcome.error = error
                }
                done.signal()
            }
            done.wait()
            if let error = outcome.error {
                throw ToolError(message: "error: the studio could not serve on 127.0.0.1:\(port): \(error) (is the port in use? give --port)")
            }
        }

        /// The workspace's folders: the argument's (a workspace root or its Templates/), else
        /// the nearest workspace from the current folder.
        func folders() throws -> Workspace.Folders {
            if let workspace {
                let url = URL(fileURLWithPath: workspace)
                guard Workspace.isDirectory(url) else { throw ToolError.usage("'\(workspace)' is not a folder") }
                guard let found = Workspace.folders(around: Workspace.isDirectory(url.appendingPathComponent("Templates")) ? url.appendingPathComponent("Templates") : url) else {
                    throw ToolError.usage("no Templates/ folder in '\(workspace)'")
                }
                return found
            }
            guard let found = Workspace.folders(around: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) else {
                throw ToolError.usage("no Templates/ folder here or above: run in a workspace, or name one")
            }
            return found
        }

        final class Outcome: @unchecked Sendable { var error: (any Error)? }
    }
}
