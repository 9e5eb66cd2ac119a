import Foundation
import Liquid
import Testing

/// The built `pushliquid` binary, run from the repository root.
@Suite struct CLITests {
    @Test func previewWithNoArgumentsShowsTheBundledExample() throws {
        let r = try runPushliquid(["preview"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("learning-progress · iOS · profile ana"))
        #expect(r.stdout.contains("Ana, you're 66% through!"))
        #expect(r.stdout.contains("next_session_name           Canvas Flows"))
        #expect(r.stdout.contains("of 3960 bytes"))
        #expect(r.stdout.contains("Content view (progress):"))
        #expect(r.stdout.contains("4 of 6 sessions · next: Canvas Flows · due"))
    }

    @Test func previewAnswersConnectedContentOffline() throws {
        let r = try runPushliquid(["preview", "coffee-punch-card"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("Today: Pastel de nata"))
        // A URL the fixtures do not have inserts nothing; the template's default shows.
        let other = try runPushliquid(["preview", "coffee-punch-card", "--profile", "Profiles/eun-ji.json"])
        #expect(other.stdout.contains("Today: our house blend."))
        // ... and says so, at the tag's position in the campaign file.
        #expect(other.stderr.contains("Templates/coffee-punch-card.yml:"), "\(other.stderr)")
        #expect(other.stderr.contains(": warning: in body: connected_content: https://api.example.com/coffee/special?city=Seoul failed (no offline answer in connected_content.json); nothing inserted"), "\(other.stderr)")
    }

    @Test func theCourseOfferUsesACatalogACodeTheDeviceAndMessageExtras() throws {
        let preview = try runPushliquid(["preview", "course-offer"])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("Push 301: rich notifications: 25% off"))
        #expect(preview.stdout.contains("ready on your iPhone 15."))
        #expect(preview.stdout.contains("Message extras (sent beside the payload, to the send event):"))
        #expect(preview.stdout.contains("device_platform  ios"))
        // A dry run shows the code a send would give, and records nothing.
        let record = TestPaths.repositoryRoot.appendingPathComponent("PromotionCodes/course_offer.used")
        let recordBefore = try? Data(contentsOf: record)
        let render = try runPushliquid(["render", "course-offer", "--platform", "android", "--dry-run", "--result"])
        #expect(render.status == 0, "\(render.stderr)")
        let result = try JSONValueParser.parse(render.stdout)
        #expect(result.property("message_extras") == ["course_id": "push-301", "device_platform": "android"])
        #expect(result.property("payload").property("a").stringValue?.contains("ready on your Pixel 8") == true)
        #expect((try? Data(contentsOf: record)) == recordBefore)
        let check = try runPushliquid(["check", "course-offer"])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("catalogs read: courses (3 items)"))
        #expect(check.stdout.contains(recordBefore == nil ? "promotion codes: course_offer (12 left)" : "promotion codes: course_offer ("))
        #expect(try runPushliquid(["preview", "course-offer", "--profile", "Profiles/chloe-no-course.json"]).stdout.contains("ABORTED in title: the next course is not in the catalog"))
    }

    @Test func previewShowsCaptureAndGameViews() throws {
        let capture = try runPushliquid(["preview", "information-capture"])
        #expect(capture.stdout.contains("E-mail: [ana@example.com] ✓"))
        #expect(capture.stdout.contains("REGISTER_ACTION → doNotDismiss"))
        let game = try runPushliquid(["preview", "match-game", "--profile", "Profiles/bo-missing-attributes.json"])
        #expect(game.stdout.contains("Content view (match game): 3 pairs, 8 turns, reward 50"))
    }

    @Test func previewOptions() throws {
        let r = try runPushliquid(["preview", "learning-progress", "--profile", "Profiles/eun-ji.json", "--trigger", "next_session_name=Push 101",
                                   "--trigger", "next_session_complete_date=2026-12-01", "--platform", "android"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Next up: Push 101, due Dec 1."))
        #expect(r.stdout.contains("of 3930 bytes"))
    }

    @Test func renderExitCodes() throws {
        let ok = try runPushliquid(["render", "coffee-punch-card"])
        #expect(ok.status == 0)
        let payload = try JSONValueParser.parse(ok.stdout)
        #expect(payload.property("aps").property("badge") == 7)
        let aborted = try runPushliquid(["render", "learning-progress", "--profile", "Profiles/chloe-no-course.json"])
        #expect(aborted.status == 3)
        #expect(aborted.stderr.contains("no course in progress"))
        let failed = try runPushliquid(["render", "information-capture", "--profile", "Profiles/dmitri-oversized.json"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("over the 3960-byte limit"))
        #expect(try runPushliquid(["render", "no-such-campaign"]).status == 2)
        #expect(try runPushliquid(["render", "--platform", "windows"]).status == 2)
        #expect(try runPushliquid(["render", "--now", "yesterday"]).status == 2)
        #expect(try runPushliquid(["render", "--trigger", "novalue"]).status == 2)
        #expect(try runPushliquid(["render", "--profile", "/nonexistent.json"]).status == 2)
    }

    @Test func brokenCampaignFileIsReportedWithPosition() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.yml")
        try "name: bad\ntitle: \"{% for x in y %}\"\nbody: b\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try runPushliquid(["render", file.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bad.yml:2:9: error: in title: 'for' tag was never closed"))
    }

    @Test func batchStreamsResultsAndSummarizes() throws {
        let input = [
            #"{"profile": {"external_id": "a", "first_name": "ana", "custom_attributes": {"completed_session_count": 1, "total_session_count": 4}}, "api_trigger_properties": {"next_session_name": "X", "next_session_complete_date": "2026-01-02"}}"#,
            "garbage",
            "",
            #"{"profile": {"external_id": "c"}}"#,
        ].joined(separator: "\n") + "\n"
        let r = try runPushliquid(["batch", "learning-progress"], stdin: input)
        #expect(r.status == 4, "a failed line makes the exit status 4: \(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map { try? JSONValueParser.parse(String($0)) }
        #expect(lines.count == 4, "one result per input line")
        #expect(lines[0]?.property("status") == "rendered" && lines[0]?.property("external_id") == "a")
        #expect(lines[1]?.property("status") == "failed" && lines[1]?.property("line") == 2)
        #expect(lines[2]?.property("status") == "skipped" && lines[2]?.property("line") == 3)
        #expect(lines[3]?.property("status") == "aborted" && lines[3]?.property("reason") == "no course in progress")
        #expect(lines[3]?.property("line") == 4, "line numbers follow the input, blank lines included")
        #expect(r.stderr.contains("batch: 4 lines: 1 rendered, 1 aborted, 1 failed, 1 skipped"))
        #expect(r.stderr.contains("field renders/s"))
        let allowed = try runPushliquid(["batch", "learning-progress", "--allow-failures"], stdin: input)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout == r.stdout)
    }

    @Test func benchPrintsTheFigureAndNamesABadContextLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let templates = dir.appendingPathComponent("w1.json")
        try #"{"title": "{{${first_name}}}", "body": "b", "key_value_pairs": {"k": "{{custom_attribute.${n} | plus: 1}}"}}"#
            .write(to: templates, atomically: true, encoding: .utf8)
        let good = dir.appendingPathComponent("good.ndjson")
        try "{\"profile\": {\"first_name\": \"a\"}}\n\n{\"profile\": {\"custom_attributes\": {\"n\": 2}}}\n".write(to: good, atomically: true, encoding: .utf8)
        let r = try runPushliquid(["bench", "--templates", templates.path, "--contexts", good.path, "--warmup", "0"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").last?.hasPrefix("render_seconds=") == true)
        #expect(r.stdout.hasSuffix("renders=6\n"))
        let bad = dir.appendingPathComponent("bad.ndjson")
        try "{}\n\n{bad\n".write(to: bad, atomically: true, encoding: .utf8)
        let e = try runPushliquid(["bench", "--templates", templates.path, "--contexts", bad.path])
        #expect(e.status == 1)
        #expect(e.stderr == "error: \(bad.path): line 3: invalid render context document: 1:2: expected a string key\n")
    }

    @Test func checkListsAttributesAndFlagsProblems() throws {
        let r = try runPushliquid(["check"])
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout.contains("title reads: custom_attribute.${total_session_count}, ${first_name}, custom_attribute.${completed_session_count}"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "name: c\ntitle: \"{{ ${nickname} | shout }}\"\nbody: b\n".write(to: dir.appendingPathComponent("c.yml"), atomically: true, encoding: .utf8)
        let bad = try runPushliquid(["check", "--templates", dir.path, "--profiles", "Profiles"])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("c.yml:2:26: error: in title: unknown filter 'shout'"), "\(bad.stdout)")
        #expect(bad.stdout.contains("c.yml:2:12: warning: in title: ${nickname} is not a Braze standard attribute"), "\(bad.stdout)")
        #expect(bad.stdout.contains(" 2 | title: \"{{ ${nickname} | shout }}\"\n   |            ^\n"), "a caret under the place")
        let json = try runPushliquid(["check", "--templates", dir.path, "--profiles", "Profiles", "--format", "json"])
        #expect(json.status == 1)
        let problems = try JSONValueParser.parse(json.stdout)
        #expect(problems.arrayValue?.count == 2)
        #expect(problems.arrayValue?.first?.property("line") == 2 && problems.arrayValue?.first?.property("column") == 26)
        #expect(problems.arrayValue?.first?.property("severity") == "error")
    }

    @Test func goldenCommandAgreesWithTheFiles() throws {
        let r = try runPushliquid(["golden"])
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout.contains("25 matched, 0 differ"))
    }

    @Test func helpForEveryCommand() throws {
        for command in ["preview", "render", "check", "batch", "golden", "conformance", "bench", "liquid"] {
            let r = try runPushliquid([command, "--help"])
            #expect(r.status == 0)
            #expect(r.stdout.contains("USAGE: pushliquid \(command)"))
            #expect(r.stdout.contains("Exit code") || r.stdout.contains("Exit status"), "\(command) --help lists its exit codes")
        }
        let completion = try runPushliquid(["--generate-completion-script", "bash"])
        #expect(completion.status == 0 && completion.stdout.contains("_pushliquid"))
    }
}
