import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import PushPayload
import Testing

/// What a payload knows of its send: the device it goes to and the campaign or Canvas
/// attributes of this dispatch.
@Suite struct SendAttributeTests {
    let yaml = """
        name: device
        campaign: {api_id: cmp-1, name: Device, message_name: Variant A}
        canvas: {name: Onboarding, variant_name: Control}
        title: "On your {{targeted_device.${model} | default: 'phone'}}"
        body: "{{campaign.${api_id}}}/{{campaign.${dispatch_id} | default: 'none'}}/{{campaign.${message_name}}}/{{canvas.${variant_name}}}/{{canvas.${variant_api_id} | default: '-'}}"
        """
    let profile = """
        {"devices": [{"model": "iPhone 15", "os": "iOS 17.2", "idfv": "A"}, {"model": "Pixel 8", "device_id": "B"}],
         "push_tokens": [{"platform": "iOS", "device_id": "A", "token": "x"}, {"platform": "Android", "device_id": "B", "token": "y"}]}
        """

    func fields(_ result: PayloadResult) -> [String: String] {
        guard case .rendered(let payload) = result else { Issue.record("not rendered: \(result)"); return [:] }
        return Dictionary(payload.fields.map { ($0.name, $0.text) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func iOSAndAndroidPayloadsOfOneRecipientNameTheirOwnDevice() throws {
        let campaign = try compile(yaml)
        let document = try doc(#"{"profile": \#(profile)}"#)
        #expect(fields(campaign.render(document, platform: .ios))["title"] == "On your iPhone 15")
        #expect(fields(campaign.render(document, platform: .android))["title"] == "On your Pixel 8")
    }

    @Test func campaignAndCanvasAttributesComeFromTheFileAndTheSend() throws {
        let campaign = try compile(yaml)
        #expect(fields(campaign.render(try doc("{}"), platform: .ios))["body"] == "cmp-1/none/Variant A/Control/-")
        // A batch line's own keys are added over the file's.
        let line = try doc(#"{"campaign": {"dispatch_id": "d-77"}, "canvas": {"variant_api_id": "v-9"}}"#)
        #expect(fields(campaign.render(line, platform: .ios))["body"] == "cmp-1/d-77/Variant A/Control/v-9")
        // ... and so are a send's options.
        let sent = campaign.with(campaignInfo: [("dispatch_id", "d-1"), ("message_name", "Variant B")], canvasInfo: [("variant_name", "Test")])
        #expect(fields(sent.render(try doc("{}"), platform: .ios))["body"] == "cmp-1/d-1/Variant B/Test/-")
        #expect(fields(sent.render(line, platform: .ios))["body"] == "cmp-1/d-77/Variant B/Test/v-9")
    }

    @Test func cliOptionsFillTheSendsAttributes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("send-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("device.yml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let render = try runPushliquid(["render", file.path, "--campaign-info", "dispatch_id=d-5", "--canvas-info", "variant_api_id=v-2"])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try JSONValueParser.parse(render.stdout).property("aps").property("alert").property("body") == "cmp-1/d-5/Variant A/Control/v-2")
        let batch = try runPushliquid(["batch", file.path, "--platform", "android", "--campaign-info", "dispatch_id=d-6"],
                                      stdin: #"{"profile": \#(profile.replacingOccurrences(of: "\n", with: " "))}"# + "\n")
        #expect(batch.status == 0, "\(batch.stderr)")
        let result = try JSONValueParser.parse(batch.stdout)
        #expect(result.property("payload").property("t") == "On your Pixel 8")
        #expect(result.property("payload").property("a") == "cmp-1/d-6/Variant A/Control/-")
        #expect(try runPushliquid(["render", file.path, "--campaign-info", "novalue"]).status == 2)
    }

    @Test func messageExtrasTravelBesideThePayload() throws {
        let campaign = try compile("""
            name: extras
            title: "Hi{% message_extras :key language :value {{${language}}} %}"
            body: "b{% message_extras :key course :value {{custom_attribute.${course}}} %}"
            """)
        let document = try doc(#"{"profile": {"language": "de", "custom_attributes": {"course": "Liquid 101"}}}"#)
        guard case .rendered(let payload) = campaign.render(document, platform: .android) else { Issue.record("not rendered"); return }
        #expect(payload.messageExtras == [MessageExtra(key: "language", value: "de"), MessageExtra(key: "course", value: "Liquid 101")])
        #expect(!payload.serialized.contains("Liquid 101"), "never in the payload")
        #expect(PayloadResult.rendered(payload).json.property("message_extras") == ["language": "de", "course": "Liquid 101"])
        // A batch line carries them beside its payload.
        let renderer = BatchRenderer(campaign: campaign, platform: .ios, workers: 1)
        let line = renderer.renderLine(#"{"profile": {"language": "fr", "custom_attributes": {"course": "X"}}}"#, number: 1)
        let result = try JSONValueParser.parse(line.text)
        #expect(result.property("message_extras") == ["language": "fr", "course": "X"])
        #expect(result.property("payload").property("aps").property("alert").property("title") == "Hi")
    }

    @Test func previewsKeepTextsOverTheCapAndSayWhereAMessageAborted() throws {
        let campaign = try compile("""
            name: p
            title: "Hi {{${first_name}}}"
            body: "{% if ${first_name} == blank %}\\n  {% abort_message('no name') %}{% endif %}{{ custom_attribute.${long} }}"
            """, blocks: ["stop": "x\n {% abort_message('from a block') %}"])
        let long = try doc(#"{"profile": {"first_name": "Al", "custom_attributes": {"long": "\#(String(repeating: "é", count: 2500))"}}}"#)
        let over = campaign.preview(long, platform: .ios)
        guard case .failed(.payloadTooLarge(let bytes, let limit, _, _)) = over.result else { Issue.record("\(over.result)"); return }
        #expect(over.payloadBytes == bytes && bytes > limit)
        #expect(over.fields.map(\.name) == ["title", "body"] && over.fields[0].text == "Hi Al")
        let aborted = campaign.preview(try doc("{}"), platform: .android)
        guard case .aborted(let reason, let field) = aborted.result else { Issue.record("\(aborted.result)"); return }
        #expect(reason == "no name" && field == "body")
        #expect(aborted.abortPlace == "test.yml:4:3", "\(String(describing: aborted.abortPlace))")
        let inBlock = try compile("name: b\ntitle: t\nbody: \"{{content_blocks.${stop}}}\"\n", blocks: ["stop": "x\n {% abort_message('from a block') %}"])
        #expect(inBlock.preview(try doc("{}"), platform: .ios).abortPlace == "content_blocks/stop.liquid:2:2 (from body in test.yml)")
        let ok = campaign.preview(try doc(#"{"profile": {"first_name": "Bo"}}"#), platform: .ios)
        guard case .rendered(let payload) = ok.result else { Issue.record("\(ok.result)"); return }
        #expect(ok.payloadBytes == payload.byteCount && ok.abortPlace == nil)
    }

    @Test func batchWorkersAreAnOption() throws {
        let line = #"{"profile": {"external_id": "u1", "first_name": "Al"}}"# + "\n"
        let one = try runPushliquid(["batch", "match-game", "--workers", "1"], stdin: line + line)
        #expect(one.status == 0 && one.stdout.split(separator: "\n").count == 2)
        #expect(try runPushliquid(["batch", "match-game", "--workers", "0"], stdin: line).status == 2)
        #expect(try runPushliquid(["batch", "match-game", "--workers", "1000"], stdin: line).status == 2)
    }
}
