import Foundation
import Liquid
import LiquidTestSupport
import PushPayload
import Testing

/// Standard input, pipes, byte order marks, invalid UTF-8 and failed writes in the CLI.
@Suite struct CLIPlumbingTests {
    /// A fresh folder with `files` (name → bytes) in it.
    func folder(_ files: [String: [UInt8]]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plumbing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Templates/content_blocks"), withIntermediateDirectories: true)
        for (name, bytes) in files { try Data(bytes).write(to: dir.appendingPathComponent(name)) }
        return dir
    }

    @Test func standardInputIsDashAndPipesAreFiles() throws {
        let dir = try folder(["t.liquid": Array("Hi {{ name }}".utf8)])
        defer { try? FileManager.default.removeItem(at: dir) }
        let template = dir.appendingPathComponent("t.liquid").path
        let fromDash = try runPushliquid(["liquid", "-"], stdin: "{{ 'a' | upcase }}")
        #expect(fromDash.status == 0)
        #expect(fromDash.stdout == "A")
        let dataDash = try runPushliquid(["liquid", template, "--data", "-"], stdin: #"{"name": "Ana"}"#)
        #expect(dataDash.stdout == "Hi Ana")
        let devStdin = try runPushliquid(["liquid", template, "--data", "/dev/stdin"], stdin: #"{"name": "Bo"}"#)
        #expect(devStdin.status == 0, "\(devStdin.stderr)")
        #expect(devStdin.stdout == "Hi Bo")
        let both = try runPushliquid(["liquid", "-", "--data", "-"], stdin: "x")
        #expect(both.status == 2)
        let missing = try runPushliquid(["liquid", dir.appendingPathComponent("nope.liquid").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("No such file or directory"))
    }

    @Test func dataMustBeAnObjectAndJSONErrorsNameTheFile() throws {
        let dir = try folder(["t.liquid": Array("{{ x }}".utf8), "array.json": Array("[1, 2]".utf8),
                              "bad.json": Array("{\"a\":\n  tru}".utf8)])
        defer { try? FileManager.default.removeItem(at: dir) }
        let template = dir.appendingPathComponent("t.liquid").path
        let array = try runPushliquid(["liquid", template, "--data", dir.appendingPathComponent("array.json").path])
        #expect(array.status == 1)
        #expect(array.stderr.contains("array.json:1:1: error: the data must be a JSON object, not an array"))
        let bad = try runPushliquid(["liquid", template, "--data", dir.appendingPathComponent("bad.json").path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("bad.json:2:3: error: invalid JSON: invalid literal"))
        #expect(!bad.stderr.contains("error: error:"))
    }

    @Test func byteOrderMarksAreDropped() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let dir = try folder([
            "t.liquid": bom + Array("{{ name | upcase }}".utf8),
            "d.json": bom + Array(#"{"name": "ana"}"#.utf8),
            "Templates/c.yml": bom + Array("name: c\ntitle: \"Hi {{${first_name}}}\"\nbody: b\n".utf8),
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try runPushliquid(["liquid", dir.appendingPathComponent("t.liquid").path, "--data", dir.appendingPathComponent("d.json").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "ANA")
        let campaign = try runPushliquid(["render", dir.appendingPathComponent("Templates/c.yml").path, "--templates", dir.appendingPathComponent("Templates").path])
        #expect(campaign.status == 0, "\(campaign.stderr)")
        #expect(campaign.stdout.contains(#""title":"Hi "#))
    }

    @Test func invalidUTF8IsAnErrorAtItsPosition() throws {
        let dir = try folder([
            "t.liquid": Array("ab\n c".utf8) + [0xFF] + Array("d".utf8),
            "d.json": Array("{\"a\": \"x".utf8) + [0xC3] + Array("\"}".utf8),
            "Templates/c.yml": Array("name: c\ntitle: \"{{content_blocks.${greeting}}}\"\nbody: \"b".utf8) + [0xE2, 0x82] + Array("\"\n".utf8),
            "Templates/b.yml": Array("name: b\ntitle: \"{{content_blocks.${greeting}}}\"\nbody: b\n".utf8),
            "Templates/content_blocks/greeting.liquid": Array("Hello\n".utf8) + [0x80],
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let template = try runPushliquid(["liquid", dir.appendingPathComponent("t.liquid").path])
        #expect(template.status == 1)
        #expect(template.stderr.contains("t.liquid:2:3: error: invalid UTF-8 (byte 0xFF)"))
        let data = try runPushliquid(["liquid", dir.appendingPathComponent("t.liquid").path, "--data", dir.appendingPathComponent("d.json").path])
        #expect(data.status == 1)
        let campaign = try runPushliquid(["render", dir.appendingPathComponent("Templates/c.yml").path, "--templates", dir.appendingPathComponent("Templates").path])
        #expect(campaign.status == 1)
        #expect(campaign.stderr.contains("c.yml:3:9: error: invalid UTF-8 (byte 0xE2)"), "\(campaign.stderr)")
        let block = try runPushliquid(["render", dir.appendingPathComponent("Templates/b.yml").path, "--templates", dir.appendingPathComponent("Templates").path])
        #expect(block.status == 1)
        #expect(block.stderr.contains("b.yml: error: in title: invalid UTF-8 (byte 0x80) (at content_blocks/greeting.liquid:2:1)"), "\(block.stderr)")
    }

    @Test func aFailedWriteIsAnError() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let process = Process()
        process.executableURL = TestPaths.pushliquidBinary
        process.arguments = ["render", "coffee-punch-card"]
        process.currentDirectoryURL = TestPaths.repositoryRoot
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(message.contains("error: cannot write standard output: No space left on device"))
    }

    @Test func endlessInputsAndDevicesAreHandled() throws {
        // An endless "file" stops at the input limit instead of filling memory.
        let endless = try runPushliquid(["liquid", "-", "--data", "/dev/zero"], stdin: "{{ x }}")
        #expect(endless.status == 1)
        #expect(endless.stderr.contains("'/dev/zero' is larger than 64 MiB"))
        // A device as batch output (it cannot be synced) is not a write error.
        let line = #"{"profile": {"external_id": "a", "first_name": "ana", "custom_attributes": {"completed_session_count": 1, "total_session_count": 4}}, "api_trigger_properties": {"next_session_name": "X", "next_session_complete_date": "2026-01-02"}}"#
        let batch = try runPushliquid(["batch", "learning-progress", "--output", "/dev/null"], stdin: line + "\n")
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stderr.contains("1 rendered"))
    }

    @Test func versionIsPrinted() throws {
        let r = try runPushliquid(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("pushliquid 0."))
    }
}

/// The workspace (campaigns, content blocks, offline answers, profiles) is found from the
/// campaign file's location, so that every folder gives the same answer.
@Suite struct WorkspaceDiscoveryTests {
    /// Runs pushliquid in `directory`.
    func run(_ arguments: [String], in directory: URL, stdin: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try BuiltProducts.run(TestPaths.pushliquidBinary, arguments, in: directory, stdin: stdin)
    }

    @Test func previewFromAnotherFolderMatchesTheRoot() throws {
        let elsewhere = FileManager.default.temporaryDirectory
        let campaign = TestPaths.repositoryRoot.appendingPathComponent("Templates/coffee-punch-card.yml").path
        let fromRoot = try runPushliquid(["preview", "coffee-punch-card"])
        let fromElsewhere = try run(["preview", campaign], in: elsewhere)
        #expect(fromElsewhere.status == 0, "\(fromElsewhere.stderr)")
        #expect(fromElsewhere.stderr.isEmpty)
        #expect(fromElsewhere.stdout == fromRoot.stdout)
        #expect(fromElsewhere.stdout.contains("profile ana"))
        #expect(fromElsewhere.stdout.contains("Today: Pastel de nata"), "offline Connected Content answers found beside the campaign")
        // A name is looked up in the nearest Templates/ above the current folder.
        let fromSubfolder = try run(["render", "learning-progress"], in: TestPaths.repositoryRoot.appendingPathComponent("Templates/content_blocks"))
        #expect(fromSubfolder.status == 0, "\(fromSubfolder.stderr)")
        #expect(fromSubfolder.stdout == (try runPushliquid(["render", "learning-progress"])).stdout)
    }

    @Test func missingProfilesAreSaid() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Templates"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "name: c\ntitle: \"Hi {{${first_name} | default: 'there'}}\"\nbody: b\n".write(to: dir.appendingPathComponent("Templates/c.yml"), atomically: true, encoding: .utf8)
        let none = try run(["preview", "Templates/c.yml"], in: dir)
        #expect(none.status == 0)
        #expect(none.stderr.contains("warning: no Profiles/ folder beside Templates/c.yml or above it"))
        let wrong = try run(["preview", "Templates/c.yml", "--profiles", "/nonexistent"], in: dir)
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("--profiles '/nonexistent' is not a folder"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Profiles"), withIntermediateDirectories: true)
        try #"{"external_id": "z", "first_name": "Zoë"}"#.write(to: dir.appendingPathComponent("Profiles/zoe.json"), atomically: true, encoding: .utf8)
        try "{bad".write(to: dir.appendingPathComponent("Profiles/broken.json"), atomically: true, encoding: .utf8)
        let found = try run(["render", dir.appendingPathComponent("Templates/c.yml").path, "--profile", dir.appendingPathComponent("Profiles/zoe.json").path], in: FileManager.default.temporaryDirectory)
        #expect(found.stdout.contains("Hi Zoë"))
        // check: a broken profile is an error of its own, and the campaigns are still checked.
        let check = try run(["check"], in: dir.appendingPathComponent("Templates"))
        #expect(check.status == 1)
        #expect(check.stdout.contains("Profiles/broken.json:1:2: error: invalid JSON"), "\(check.stdout)")
        #expect(check.stdout.contains("Templates/c.yml: c") || check.stdout.contains("c.yml: c"), "\(check.stdout)")
        let noWorkspace = try run(["check"], in: URL(fileURLWithPath: "/"))
        #expect(noWorkspace.status == 2)
        #expect(noWorkspace.stderr.contains("no Templates/ folder here or above"))
    }
}

/// Messages name the file, line and column, and say what to do.
@Suite struct MessageTests {
    @Test func yamlErrorsPointWhereTheProblemIs() throws {
        func error(_ yaml: String) -> CampaignError? {
            do { _ = try Campaign(yaml: yaml, file: "c.yml"); return nil } catch { return error as? CampaignError }
        }
        let unclosed = error("name: a\ntitle: \"Hi there\nbody: b\nkey_value_pairs:\n  x: y\n")
        #expect(unclosed?.location == SourceLocation(line: 2, column: 8), "where the quote opened")
        #expect(unclosed?.message.contains("quoted scalar") == true)
        let duplicate = error("name: a\ntitle: t\nbody: b\nkey_value_pairs:\n  x: y\n  z: w\n  x: q\n")
        #expect(duplicate?.location == SourceLocation(line: 7, column: 3), "the second x")
        #expect(duplicate?.message == "duplicate key 'x'")
        #expect(duplicate?.description == "c.yml:7:3: error: duplicate key 'x'")
        #expect(error("name: a\ntitle: t\nbody: b\nname: c\n")?.location == SourceLocation(line: 4, column: 1))
    }

    @Test func suitesAndBenchFilesAreNamed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("msg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let notSuite = dir.appendingPathComponent("not-suite.json"), broken = dir.appendingPathComponent("broken.json")
        try #"{"a": 1}"#.write(to: notSuite, atomically: true, encoding: .utf8)
        try "[1,\n".write(to: broken, atomically: true, encoding: .utf8)
        let suite = try runPushliquid(["conformance", notSuite.path])
        #expect(suite.status == 1)
        #expect(suite.stderr.hasPrefix("\(notSuite.path): error: a conformance suite is an object"), "\(suite.stderr)")
        let badJSON = try runPushliquid(["conformance", broken.path])
        #expect(badJSON.stderr.hasPrefix("\(broken.path):2:1: error: invalid JSON:"), "\(badJSON.stderr)")
        let bench = try runPushliquid(["bench", "--templates", broken.path, "--contexts", broken.path])
        #expect(bench.status == 1)
        #expect(bench.stderr.hasPrefix("\(broken.path):2:1: error: invalid JSON:"), "\(bench.stderr)")
    }

    @Test func goldenShowsTheChangedLinesAndTheWayToAcceptThem() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Tests"), withIntermediateDirectories: true)
        for folder in ["Templates", "Profiles", "Tests/Golden"] {
            try FileManager.default.copyItem(at: TestPaths.repositoryRoot.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
        }
        let file = root.appendingPathComponent("Tests/Golden/learning-progress/ana.json")
        try (try String(contentsOf: file, encoding: .utf8)).replacingOccurrences(of: "Canvas Flows, due", with: "Canvas Flow, due")
            .write(to: file, atomically: true, encoding: .utf8)
        let r = try BuiltProducts.run(TestPaths.pushliquidBinary, ["golden"], in: root.appendingPathComponent("Profiles"))
        #expect(r.status == 1)
        #expect(r.stdout.contains("DIFFERS Tests/Golden/learning-progress/ana.json") || r.stdout.contains("learning-progress/ana.json"), "\(r.stdout)")
        #expect(r.stdout.contains(#"-           "body": "Next up: Canvas Flow, due Jul 4. Bons estudos!""#), "\(r.stdout)")
        #expect(r.stdout.contains(#"+           "body": "Next up: Canvas Flows, due Jul 4. Bons estudos!""#))
        #expect(r.stdout.contains("pushliquid golden --update"))
        let nowhere = try BuiltProducts.run(TestPaths.pushliquidBinary, ["golden"], in: URL(fileURLWithPath: "/"))
        #expect(nowhere.status == 2)
        #expect(nowhere.stderr.contains("no Templates/ folder here or above"))
        #expect(!nowhere.stderr.contains("NSCocoaErrorDomain"))
    }
}

@Suite struct PreviewBoxTests {
    /// Terminal columns for the test's text: CJK and full-width forms take two.
    func width(_ line: Substring) -> Int {
        line.unicodeScalars.reduce(0) { $0 + ((0x3000...0x9FFF).contains($1.value) || (0xFF00...0xFF60).contains($1.value) ? 2 : 1) }
    }

    @Test func wideCharactersKeepTheBoxAligned() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("box-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("w.yml")
        try "name: w\ntitle: \"こんにちは、{{${first_name}}}さん！\"\nbody: \"今日のレッスンは「キャンバス」です。がんばってください。今日のレッスンは「キャンバス」です。\"\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let r = try runPushliquid(["preview", file.path, "--profile", "Profiles/ana.json"])
        #expect(r.status == 0, "\(r.stderr)")
        let box = r.stdout.split(separator: "\n").filter { $0.hasPrefix("│") || $0.hasPrefix("┌") || $0.hasPrefix("└") }
            .map { $0.hasSuffix("  title") ? $0.dropLast(7) : $0 }
        #expect(box.count == 5, "the body wraps onto two lines: \(box)")
        #expect(Set(box.map(width)).count == 1, "every line of the box is as wide: \(box)")
    }
}
