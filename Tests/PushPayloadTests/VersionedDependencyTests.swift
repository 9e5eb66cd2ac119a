import Foundation
import LiquidTestSupport
import Testing

/// The package as others use it: a client package that depends on a tagged version by URL
/// (no unsafe flags allowed there) and renders a campaign through the high-level API.
@Suite struct VersionedDependencyTests {
    /// Runs `arguments` (the first is the program, found on PATH) in `directory`.
    func run(_ arguments: [String], in directory: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        try BuiltProducts.run(URL(fileURLWithPath: "/usr/bin/env"), arguments, in: directory)
    }

    @Test func aClientPackageRendersAsTheCLIDoes() throws {
        let root = TestPaths.repositoryRoot
        // Under .build/ (ignored by git) and kept between runs, so that a second run builds
        // only what changed.
        let work = root.appendingPathComponent(".build/versioned-client")
        let snapshot = work.appendingPathComponent("pushliquid"), client = work.appendingPathComponent("client")
        let fm = FileManager.default
        try fm.createDirectory(at: snapshot, withIntermediateDirectories: true)
        // 1. The package's files as they are now (tracked or new, not ignored), committed and
        //    tagged with a version newer than any earlier run's.
        for name in try fm.contentsOfDirectory(atPath: snapshot.path) where name != ".git" {
            try fm.removeItem(at: snapshot.appendingPathComponent(name))
        }
        let files = try run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], in: root)
        #expect(files.status == 0, "\(files.stderr)")
        for path in files.stdout.split(separator: "\n").map(String.init)
        where !path.hasPrefix("Fuzz/") && !path.hasPrefix("Benchmarks/") && fm.fileExists(atPath: root.appendingPathComponent(path).path) {
            let target = snapshot.appendingPathComponent(path)
            try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(at: root.appendingPathComponent(path), to: target)
        }
        let version = "0.18.\(Int(Date().timeIntervalSince1970))"
        for step in [["git", "init", "-q"], ["git", "add", "-A"],
                     ["git", "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "--allow-empty", "-m", "snapshot"],
                     ["git", "tag", version]] {
            let r = try run(step, in: snapshot)
            #expect(r.status == 0, "\(step): \(r.stderr)")
        }
        // 2. A client that depends on it by URL and version.
        try fm.createDirectory(at: client.appendingPathComponent("Sources/client"), withIntermediateDirectories: true)
        try """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "Client",
                platforms: [.macOS(.v13)],
                dependencies: [.package(url: "\(snapshot.absoluteString)", from: "0.18.0")],
                targets: [.executableTarget(name: "client", dependencies: [.product(name: "PushPayload", package: "pushliquid")])]
            )
            """.write(to: client.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try """
            import Foundation
            import PushPayload

            // Load the workspace, compile a campaign, render a recipient's payload.
            let workspace = try CampaignWorkspace(root: URL(fileURLWithPath: CommandLine.arguments[1]))
            let campaign = try workspace.compile("learning-progress")
            let document = try campaign.previewDocument(profile: try workspace.profile("ana"))
            guard case .rendered(let payload) = campaign.render(document, platform: .ios) else { exit(1) }
            print(payload.serialized)
            """.write(to: client.appendingPathComponent("Sources/client/main.swift"), atomically: true, encoding: .utf8)
        try? fm.removeItem(at: client.appendingPathComponent("Package.resolved"))
        let scratch = work.appendingPathComponent("build")
        // (update: an earlier run's resolution names an earlier tag.)
        let update = try run(["swift", "package", "update", "--package-path", client.path, "--scratch-path", scratch.path], in: client)
        #expect(update.status == 0, "\(update.stderr.suffix(2000))")
        let build = try run(["swift", "build", "--package-path", client.path, "--scratch-path", scratch.path], in: client)
        #expect(build.status == 0, "the client builds against the tagged version: \(build.stdout.suffix(3000)) \(build.stderr.suffix(3000))")
        #expect(!(build.stdout + build.stderr).contains("unsafe build flags"))
        let resolved = try String(contentsOf: client.appendingPathComponent("Package.resolved"), encoding: .utf8)
        #expect(resolved.contains("\"version\" : \"\(version)\""), "resolved to this run's tag: \(resolved)")
        // 3. It renders what the CLI renders.
        let rendered = try run([scratch.appendingPathComponent("debug/client").path, root.path], in: client)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let cli = try runPushliquid(["render", "learning-progress"])
        #expect(cli.status == 0)
        #expect(rendered.stdout == cli.stdout)
        #expect(rendered.stdout.contains("\"title\":\"Ana, you're 66% through!\""))
    }
}
