import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import PushPayload
import Testing

@Suite struct CampaignFileTests {
    @Test(arguments: [
        ("name: x\ntitle: t\nbody: b\n1️⃣colour: red\n", "unknown key 'colour' in the campaign"),
        ("name: x\ntitle: t\nbody: 1️⃣[1, 2]\n", "body must be a single value"),
        ("name: x\ntitle: t\nbody: b\nios:\n  1️⃣badges: 3\n", "unknown key 'badges' in ios"),
        ("name: x\ntitle: t\nbody: b\nandroid:\n  priority: 1️⃣7\n", "android.priority must be between -2 and 2, got 7"),
        ("name: x\ntitle: t\nbody: b\nios:\n  mutable_content: 1️⃣yes please\n", "ios.mutable_content must be true or false"),
        ("name: x\ntitle: t\nbody: b\nios:\n  interruption_level: 1️⃣loud\n", "ios.interruption_level must be one of"),
        ("name: x\ntitle: t\nbody: b\nkey_value_pairs:\n  1️⃣aps: x\n", "key-value pair 'aps' is reserved"),
        ("name: x\ntitle: t\nbody: b\ncontent_view: 1️⃣slideshow\n", "content_view must be one of progress, capture, match_game"),
        ("name: x\ntitle: \"{% if a %}1️⃣{% endfr %}\"\nbody: b\n", "in title: unknown tag 'endfr'"),
        ("name: x\ntitle: t\nbody: |\n  line one\n  {{ a }} 1️⃣{% endif %}\n", "in body: unexpected tag 'endif'"),
        ("name: x\ntitle: 'it''s'\nbody: b\nkey_value_pairs:\n  k: 'v 1️⃣{{ ${first_name'\n", "in key_value_pairs.k: variable '{{' was not properly terminated"),
    ])
    func errorsHaveFileLineAndColumn(_ marked: String, _ message: String) throws {
        let source = MarkedText(marked)
        do {
            _ = try compile(source.text)
            Issue.record("no error for \(marked)")
        } catch let error as CampaignError {
            #expect(error.message.contains(message), "\(error)")
            #expect(error.location == source.location, "\(error)")
            #expect(error.file == "test.yml")
        }
    }

    @Test func missingRequiredKeys() {
        #expect(throws: CampaignError.self) { try compile("name: x\ntitle: t\n") }
        #expect(throws: CampaignError.self) { try compile("title: t\nbody: b\n") }
        #expect(throws: CampaignError.self) { try compile("name: x\ntitle: t\nbody: b\nbody: c\n") }
        #expect(throws: CampaignError.self) { try compile("name: [unclosed\n") }
    }

    @Test func jsonCampaignsWork() throws {
        let c = try compile(#"{"name": "j", "title": "Hi {{${first_name}}}", "body": "b", "key_value_pairs": {"k": "v"}}"#)
        guard case .rendered(let p) = c.render(try doc(#"{"profile": {"first_name": "Al"}}"#), platform: .ios) else { Issue.record("not rendered"); return }
        #expect(p.serialized == #"{"aps":{"alert":{"title":"Hi Al","body":"b"}},"k":"v"}"#)
    }
}

@Suite struct PayloadTests {
    let yaml = """
        name: full
        title: "Hi {{${first_name}}}"
        subtitle: "sub"
        body: "Body"
        key_value_pairs:
          plain: "{{custom_attribute.${n}}}"
          structured: '$json:{"a": [1, 2], "b": {{custom_attribute.${n}}}}'
        campaign: {api_id: cmp-1, message_name: Full}
        ios:
          category: cat
          sound: default
          badge: "{{custom_attribute.${n} | plus: 1}}"
          thread_id: t1
          interruption_level: time-sensitive
          content_available: true
          image_url: "https://x.io/i/{{${user_id}}}.GIF?v=2"
          deep_link: "app://a/{{${user_id}}}"
        android:
          channel_id: ch
          priority: -1
          image_url: "https://x.io/a.png"
          deep_link: "app://b"
          summary_text: "S {{custom_attribute.${n}}}"
        """

    @Test func iosPayload() throws {
        let result = try compile(yaml).render(try doc(#"{"profile": {"external_id": "u1", "first_name": "Al", "custom_attributes": {"n": 4}}}"#), platform: .ios)
        guard case .rendered(let p) = result else { Issue.record("\(result)"); return }
        #expect(p.serialized == #"{"aps":{"alert":{"title":"Hi Al","subtitle":"sub","body":"Body"},"category":"cat","sound":"default","badge":5,"thread-id":"t1","interruption-level":"time-sensitive","mutable-content":1,"content-available":1},"ab":{"c":"cmp-1","att":{"url":"https://x.io/i/u1.GIF?v=2","type":"gif"}},"ab_uri":"app://a/u1","plain":"4","structured":{"a":[1,2],"b":4}}"#)
        #expect(p.byteCount == p.serialized.utf8.count)
    }

    @Test func androidPayload() throws {
        let result = try compile(yaml).render(try doc(#"{"profile": {"first_name": "Al", "custom_attributes": {"n": 4}}}"#), platform: .android)
        guard case .rendered(let p) = result else { Issue.record("\(result)"); return }
        #expect(p.serialized == #"{"_ab":"true","t":"Hi Al","a":"Body","extra":"{\"plain\":\"4\",\"structured\":{\"a\":[1,2],\"b\":4}}","uri":"app://b","cid":"cmp-1","ab_nc":"ch","p":"-1","ab_iu":"https://x.io/a.png","s":"S 4"}"#)
        guard case .object(let o) = p.json else { return }
        for (_, v) in o { #expect(v.stringValue != nil, "Android values are strings") }
    }

    @Test func badgeMustBeAnInteger() throws {
        let c = try compile("name: b\ntitle: t\nbody: b\nios:\n  badge: \"{{ custom_attribute.${n} }}\"\n")
        let result = c.render(try doc(#"{"profile": {"custom_attributes": {"n": "many"}}}"#), platform: .ios)
        guard case .failed(.badgeNotInteger(let rendered, _, let location)) = result else { Issue.record("\(result)"); return }
        #expect(rendered == "many")
        #expect(location == SourceLocation(line: 5, column: 10))
    }

    @Test func invalidJSONValueFails() throws {
        let c = try compile("name: b\ntitle: t\nbody: b\nkey_value_pairs:\n  k: '$json:{nope'\n")
        guard case .failed(.invalidJSONValue(let field, _, _, _)) = c.render(try doc("{}"), platform: .ios) else { Issue.record("expected failure"); return }
        #expect(field == "key_value_pairs.k")
    }

    @Test func payloadOverTheCapFailsNamingFields() throws {
        let c = try compile("name: big\ntitle: t\nbody: \"{{custom_attribute.${long}}}\"\n")
        let long = String(repeating: "é", count: 2000)  // 4000 bytes
        let result = c.render(try doc(#"{"profile": {"custom_attributes": {"long": "\#(long)"}}}"#), platform: .android)
        guard case .failed(.payloadTooLarge(let bytes, let limit, let largest, _)) = result else { Issue.record("\(result)"); return }
        #expect(limit == 3930)
        #expect(bytes > 4000)
        #expect(largest.first == "body (4000 bytes)")
        // Just under the cap renders.
        let fits = String(repeating: "a", count: 3800)
        guard case .rendered = c.render(try doc(#"{"profile": {"custom_attributes": {"long": "\#(fits)"}}}"#), platform: .android) else { Issue.record("should fit"); return }
    }

    @Test func runtimeLiquidErrorsPointIntoTheCampaignFile() throws {
        let c = try compile("name: e\ntitle: t\nbody: \"x {{ 1 | divided_by: custom_attribute.${zero} }}\"\n")
        guard case .failed(.liquid(let field, let file, let location, let message)) = c.render(try doc("{}"), platform: .ios) else { Issue.record("expected failure"); return }
        #expect(field == "body" && file == "test.yml" && message == "divided by 0")
        #expect(location == SourceLocation(line: 3, column: 17))
    }

    @Test func abortIsAResult() throws {
        let c = try compile("name: a\ntitle: t\nbody: \"{% abort_message('stop') %}\"\n")
        guard case .aborted(let reason, let field) = c.render(try doc("{}"), platform: .ios) else { Issue.record("expected abort"); return }
        #expect(reason == "stop" && field == "body")
    }

    @Test(arguments: [("https://a/b.JPEG", "jpg"), ("https://a/b.png?x=1", "png"), ("https://a/b.mp4", "mp4"), ("https://a/b", "jpg"), ("https://a/b.m4a", "m4a")])
    func attachmentTypes(_ url: String, _ type: String) { #expect(attachmentType(url) == type) }
}

@Suite struct BatchTests {
    @Test func streamsInOrderWithMalformedLinesFailing() throws {
        let c = try compile("name: b\ntitle: \"{{${first_name}}}\"\nbody: \"{% if ${first_name} == 'stop' %}{% abort_message('no') %}{% endif %}b\"\n")
        let renderer = BatchRenderer(campaign: c, platform: .ios, chunkSize: 7)
        var input: [String] = []
        for i in 0..<50 {
            switch i % 10 {
            case 3: input.append("{not json")
            case 5: input.append(#"{"profile": {"external_id": "u\#(i)", "first_name": "stop"}}"#)
            default: input.append(#"{"profile": {"external_id": "u\#(i)", "first_name": "n\#(i)"}}"#)
            }
        }
        var iterator = input.makeIterator()
        var output = ""
        let summary = try renderer.run(nextLine: { iterator.next() }, write: { output += $0 })
        #expect(summary == BatchRenderer.Summary(rendered: 40, aborted: 5, failed: 5))
        let lines = output.split(separator: "\n")
        #expect(lines.count == 50)
        for (i, line) in lines.enumerated() {
            let v = try JSONValueParser.parse(String(line))
            #expect(v.property("line") == .int(i + 1))
            switch i % 10 {
            case 3: #expect(v.property("status") == "failed")
            case 5: #expect(v.property("status") == "aborted" && v.property("reason") == "no" && v.property("external_id") == .string("u\(i)"))
            default: #expect(v.property("payload").property("aps").property("alert").property("title") == .string("n\(i)"))
            }
        }
    }
}

extension BatchTests {
    /// The byte-level run: input arriving a few bytes at a time (lines split across reads and
    /// chunks), blank and CRLF lines, a last line without a newline; output written in pieces.
    @Test(arguments: [1, 7, 4096])
    func bytesInPiecesGiveTheSameLinesAsTheLineAPI(_ readSize: Int) throws {
        let c = try compile("name: b\ntitle: \"{{${first_name} | upcase}}\"\nbody: b\n")
        let renderer = BatchRenderer(campaign: c, platform: .ios, chunkSize: 3)
        var text = ""
        for i in 0..<20 {
            switch i % 6 {
            case 2: text += "   \r\n"
            case 4: text += "{\"profile\": {\"external_id\": \"u\(i)\", \"first_name\": \"é\(i)\"}}\r\n"
            default: text += "{\"profile\": {\"external_id\": \"u\(i)\", \"first_name\": \"n\(i)\"}}\n"
            }
        }
        text += "{\"profile\": {\"first_name\": \"last\"}}"  // no newline at the end
        let input = Array(text.utf8)
        var offset = 0
        var output: [UInt8] = []
        var writes = 0
        let summary = try renderer.run(
            read: { buffer in
                let n = min(readSize, buffer.count, input.count - offset)
                input.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
                offset += n
                return n
            },
            write: { output += $0; writes += 1 })
        #expect(summary == BatchRenderer.Summary(rendered: 18, aborted: 0, failed: 0, skipped: 3))
        #expect(writes >= 6)  // one write per worker slice per chunk of three lines
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 22 && lines.last == "")
        // One result per input line, numbered as the input; blank lines are skipped results.
        for (index, line) in lines.dropLast().enumerated() {
            let v = try JSONValueParser.parse(String(line))
            #expect(v.property("line") == .int(index + 1))
            if index < 20 && index % 6 == 2 {
                #expect(v.property("status") == "skipped" && v.property("reason") == "blank line")
                continue
            }
            let name = index == 20 ? "LAST" : index % 6 == 4 ? "É\(index)" : "N\(index)"
            #expect(v.property("payload").property("aps").property("alert").property("title") == .string(name))
        }
        // The same input through the line API gives the same bytes.
        var lineIterator = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).makeIterator()
        var viaLines = ""
        _ = try renderer.run(nextLine: { lineIterator.next() }, write: { viaLines += $0 })
        #expect(viaLines == String(decoding: output, as: UTF8.self))
    }

    /// Chunks bounded by bytes: lines longer than a chunk's buffer, runs of blank lines longer
    /// than it, and chunks that end mid-line all give every line once, in order (a blank line
    /// as a skipped result).
    @Test(arguments: [64, 200, 1 << 20])
    func chunkBuffersOfAnySizeGiveEveryLine(_ chunkBytes: Int) throws {
        let c = try compile("name: b\ntitle: \"{{${first_name} | size}}\"\nbody: b\n")
        let renderer = BatchRenderer(campaign: c, platform: .ios, chunkSize: 5, chunkBytes: chunkBytes)
        var text = ""
        var expected: [(line: Int, size: Int)] = []
        var number = 0
        for i in 0..<40 {
            let name = String(repeating: "x", count: i % 7 == 3 ? 300 + i : i)
            text += "{\"profile\": {\"first_name\": \"\(name)\"}}\n"
            number += 1
            expected.append((number, name.count))
            if i % 9 == 4 {
                text += String(repeating: "\n", count: 150)
                number += 150
                expected.append(contentsOf: Array(repeating: (-1, 0), count: 150))
            }
        }
        var offset = 0
        let input = Array(text.utf8)
        var output: [UInt8] = []
        let summary = try renderer.run(
            read: { buffer in
                let n = min(buffer.count, 37, input.count - offset)
                input.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
                offset += n
                return n
            },
            write: { output += $0 })
        #expect(summary == BatchRenderer.Summary(rendered: 40, aborted: 0, failed: 0, skipped: 150 * 4))
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == expected.count)
        for (index, (line, want)) in zip(lines, expected).enumerated() {
            let v = try JSONValueParser.parse(String(line))
            #expect(v.property("line") == .int(index + 1))
            if want.line < 0 {
                #expect(v.property("status") == "skipped")
            } else {
                #expect(v.property("payload").property("aps").property("alert").property("title") == .string("\(want.size)"))
            }
        }
    }

    @Test func readAndWriteErrorsEndTheRun() throws {
        struct Broken: Error {}
        let renderer = BatchRenderer(campaign: try compile("name: b\ntitle: t\nbody: b\n"), platform: .ios, chunkSize: 2)
        #expect(throws: Broken.self) {
            _ = try renderer.run(read: { _ in throw Broken() }, write: { _ in })
        }
        let line = Array("{}\n{}\n{}\n{}\n{}\n".utf8)
        var given = false
        #expect(throws: Broken.self) {
            _ = try renderer.run(
                read: { buffer in
                    if given { return 0 }
                    given = true
                    line.withUnsafeBytes { buffer.copyMemory(from: $0) }
                    return line.count
                },
                write: { _ in throw Broken() })
        }
    }
}

@Suite struct GoldenFileTests {
    @Test func bundledCampaignsMatchTheirGoldenPayloads() throws {
        let golden = GoldenFiles(root: TestPaths.repositoryRoot)
        let entries = try golden.entries()
        #expect(entries.count >= 20)
        for entry in entries {
            #expect(entry.matches, "\(entry.path.path) differs; run `pushliquid golden` to see, `--update` to accept")
        }
        #expect(golden.staleFiles(entries).isEmpty)
    }

    @Test func goldenSetCoversAbortAndOversize() throws {
        let entries = try GoldenFiles(root: TestPaths.repositoryRoot).entries()
        #expect(entries.contains { $0.actual.contains(#""status": "aborted""#) })
        #expect(entries.contains { $0.actual.contains("over the 3960-byte limit") })
        #expect(Set(entries.map(\.profile)).count >= 5)
    }
}
