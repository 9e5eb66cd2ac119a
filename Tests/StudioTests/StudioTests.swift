import Foundation
import Liquid
import LiquidTestSupport
import PushPayload
import Studio
import Testing

/// The studio's model of a workspace (what the page draws), its export and its command line.
/// The page itself is tested in a real browser by scripts/studio-browser-test.py.
@Suite struct StudioTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let studio = StudioWorkspace(folders: try! CampaignWorkspace(root: StudioTests.root).folders)

    func profile(_ snapshot: LiquidValue, _ name: String) -> LiquidValue {
        snapshot.property("profiles").arrayValue?.first { $0.property("name") == .string(name) } ?? .nil
    }

    @Test func aSnapshotShowsEveryProfileOnBothPlatforms() throws {
        let s = studio.snapshot(campaign: "learning-progress")
        #expect(s.property("campaign") == "learning-progress")
        #expect(s.property("file") == "Templates/learning-progress.yml")
        #expect(s.property("campaigns").arrayValue?.count == 5)
        #expect(s.property("profiles").arrayValue?.map { $0.property("name") } == ["ana", "bo-missing-attributes", "chloe-no-course", "dmitri-oversized", "eun-ji"])
        let ana = profile(s, "ana").property("ios")
        #expect(ana.property("status") == "rendered")
        #expect(ana.property("title") == "Ana, you're 66% through!")
        #expect(ana.property("bytes") == 437 && ana.property("cap") == 3960)
        #expect(ana.property("contentView").property("percent") == 66)
        #expect(profile(s, "ana").property("android").property("deepLink") == "myapp://courses/canvas-flows")
        let chloe = profile(s, "chloe-no-course").property("android")
        #expect(chloe.property("status") == "aborted" && chloe.property("reason") == "no course in progress" && chloe.property("field") == "title")
        #expect(chloe.property("place").stringValue?.hasPrefix("Templates/learning-progress.yml:3:") == true)
    }

    @Test func overTheCapKeepsTheTextsAndTheSize() throws {
        let dmitri = profile(studio.snapshot(campaign: "information-capture"), "dmitri-oversized").property("ios")
        #expect(dmitri.property("status") == "over_cap")
        #expect(dmitri.property("bytes") == 4868)
        #expect(dmitri.property("title") == "Claim your Data & Analytics certificate")
        #expect(dmitri.property("largest").arrayValue?.first?.stringValue?.hasPrefix("body") == true)
    }

    @Test func contentViewsAndTheCaptureModel() throws {
        let game = profile(studio.snapshot(campaign: "match-game"), "ana").property("ios").property("contentView")
        #expect(game.property("cards").arrayValue?.count == 6 && game.property("maxTurns") == 8 && game.property("reward") == 75)
        let form = profile(studio.snapshot(campaign: "information-capture"), "bo-missing-attributes").property("ios").property("contentView")
        #expect(form.property("label") == "E-mail" && form.property("state") == "prompting")
        let bad = studio.capture(campaign: "information-capture", profile: "bo-missing-attributes", platform: .ios, value: "bo.example.com", action: nil)
        #expect(bad.property("valid") == false)
        #expect(bad.property("actions").arrayValue?.map { $0.property("id") } == ["CLOSE_ACTION", "OPEN_APP_ACTION"])
        let saved = studio.capture(campaign: "information-capture", profile: "bo-missing-attributes", platform: .ios, value: "bo@example.com", action: "REGISTER_ACTION")
        #expect(saved.property("state") == "confirmed" && saved.property("value") == "bo@example.com" && saved.property("dismissal") == "doNotDismiss")
        let refused = studio.capture(campaign: "information-capture", profile: "bo-missing-attributes", platform: .ios, value: "nope", action: "REGISTER_ACTION")
        #expect(refused.property("error").stringValue?.contains("action") == true)
    }

    @Test func eachProfileShowsItsOwnPromotionCodeAndNoneIsUsed() throws {
        let record = Self.root.appendingPathComponent("PromotionCodes/course_offer.used")
        let recordBefore = try? Data(contentsOf: record)
        let s = studio.snapshot(campaign: "course-offer")
        #expect((try? Data(contentsOf: record)) == recordBefore, "a preview uses no code")
        let codes = s.property("profiles").arrayValue!.compactMap { p in
            p.property("ios").property("keyValues").arrayValue?.first { $0.arrayValue?.first == "promo_code" }?.arrayValue?.last?.stringValue
        }
        #expect(codes.count == 4 && Set(codes).count == 4)
        #expect(profile(s, "ana").property("ios").property("messageExtras") == ["course_id": "push-301", "device_platform": "ios"])
    }

    @Test func aCampaignThatDoesNotCompileIsAnErrorWithItsPlace() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Templates"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "name: b\ntitle: \"{% if %}\"\nbody: b\n".write(to: dir.appendingPathComponent("Templates/b.yml"), atomically: true, encoding: .utf8)
        let broken = StudioWorkspace(folders: try CampaignWorkspace(root: dir).folders)
        let s = broken.snapshot(campaign: "b")
        #expect(s.property("error").stringValue?.hasPrefix("Templates/b.yml:2:") == true, "\(s.property("error"))")
        #expect(s.property("profiles") == [])
        // A saved file changes the fingerprint the studio redraws on.
        let before = broken.fingerprint()
        Thread.sleep(forTimeInterval: 0.01)
        try "name: b\ntitle: t\nbody: b\n".write(to: dir.appendingPathComponent("Templates/b.yml"), atomically: true, encoding: .utf8)
        #expect(broken.fingerprint() != before)
        // What a template renders cannot end the script element an export's snapshot is in.
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Profiles"), withIntermediateDirectories: true)
        try #"{"first_name": "</script><img src=x onerror=alert(1)>"}"#.write(to: dir.appendingPathComponent("Profiles/x.json"), atomically: true, encoding: .utf8)
        try "name: b\ntitle: \"Hi {{${first_name}}}\"\nbody: b\n".write(to: dir.appendingPathComponent("Templates/b.yml"), atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("export")
        try StudioExport.write(StudioWorkspace(folders: try CampaignWorkspace(root: dir).folders), to: out)
        let page = try String(contentsOf: out.appendingPathComponent("b.html"), encoding: .utf8)
        #expect(page.contains("Hi \\u003c/script>\\u003cimg"), "escaped in the JSON")
        #expect(page.components(separatedBy: "</script>").count == 3, "only the page's own two script elements end")
    }

    @Test func theExportWritesSelfContainedPages() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try BuiltProducts.run(BuiltProducts.url("pushliquid", repositoryRoot: Self.root), ["studio", "--export", dir.path], in: Self.root)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("studio: 6 page(s) written"))
        let page = try String(contentsOf: dir.appendingPathComponent("information-capture.html"), encoding: .utf8)
        #expect(page.contains("<script id=\"snapshot\" type=\"application/json\">"))
        #expect(page.contains("\"status\":\"over_cap\""))
        #expect(!page.contains("<script src=") && !page.contains("<link"), "no external script or style")
        #expect(try String(contentsOf: dir.appendingPathComponent("index.html"), encoding: .utf8).contains("\"campaign\":\"learning-progress\""))
        #expect(try BuiltProducts.run(BuiltProducts.url("pushliquid", repositoryRoot: Self.root), ["studio", "--port", "70000"], in: Self.root).status == 2)
        #expect(try BuiltProducts.run(BuiltProducts.url("pushliquid", repositoryRoot: Self.root), ["studio", "/nonexistent"], in: Self.root).status == 2)
    }
}
