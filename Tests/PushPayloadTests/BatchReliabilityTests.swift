import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import PushPayload
import Testing

/// Runs `renderer` over `text` read `readSize` bytes at a time; the result lines and summary.
func runBatch(_ renderer: BatchRenderer, _ text: String, readSize: Int = 4096) throws -> (lines: [LiquidValue], summary: BatchRenderer.Summary) {
    try runBatch(renderer, bytes: Array(text.utf8), readSize: readSize)
}

/// Runs `renderer` over the bytes `input` (which need not be UTF-8) read `readSize` bytes at a
/// time; the result lines and summary.
func runBatch(_ renderer: BatchRenderer, bytes input: [UInt8], readSize: Int = 4096) throws -> (lines: [LiquidValue], summary: BatchRenderer.Summary) {
    var offset = 0
    var output: [UInt8] = []
    let summary = try renderer.run(
        read: { buffer in
            let n = min(readSize, buffer.count, input.count - offset)
            input.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
            offset += n
            return n
        },
        write: { output += $0 })
    let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map { (try? JSONValueParser.parse(String($0))) ?? .nil }
    return (lines, summary)
}

/// One recipient fails alone: every input line has exactly one result, in order.
@Suite struct BatchReliabilityTests {
    /// A campaign whose title loops as far as the profile asks (a recipient can make it hit a limit).
    let campaign = try! compile("name: b\ntitle: \"{% for i in (1..${n}) %}x{% endfor %}{{${first_name}}}\"\nbody: b\n")

    func line(_ name: String, n: String = "1") -> String { #"{"profile": {"first_name": "\#(name)", "n": \#(n)}}"# }

    @Test func recipientsThatHitLimitsFailAloneWithTheirReason() throws {
        let text = [line("a"), line("b", n: "1e30"), line("c", n: "100000000"), "", "{", line("d")].joined(separator: "\n") + "\n"
        let (lines, summary) = try runBatch(BatchRenderer(campaign: campaign, platform: .ios, chunkSize: 2), text)
        #expect(summary == BatchRenderer.Summary(rendered: 2, aborted: 0, failed: 3, skipped: 1))
        #expect(lines.map { $0.property("line") } == (1...6).map { .int($0) })
        #expect(lines.map { $0.property("status") } == ["rendered", "failed", "failed", "skipped", "failed", "rendered"])
        #expect(lines[1].property("error").stringValue?.contains("number out of range") == true, "\(lines[1])")
        #expect(lines[2].property("error").stringValue?.contains("render step limit of 1000000 exceeded") == true, "\(lines[2])")
        #expect(lines[5].property("payload").property("aps").property("alert").property("title") == "xd")
    }

    @Test(arguments: [1, 13, 4096])
    func linesOverTheLimitFailWithoutBeingKept(_ readSize: Int) throws {
        let long = #"{"profile": {"first_name": "\#(String(repeating: "z", count: 5_000))"}}"#
        let text = [line("a"), long, line("b"), long].joined(separator: "\n")  // the last one without a newline
        let renderer = BatchRenderer(campaign: campaign, platform: .ios, chunkSize: 3, chunkBytes: 300, maxLineBytes: 1_000)
        let (lines, summary) = try runBatch(renderer, text, readSize: readSize)
        #expect(summary == BatchRenderer.Summary(rendered: 2, aborted: 0, failed: 2, skipped: 0))
        #expect(lines.map { $0.property("status") } == ["rendered", "failed", "rendered", "failed"])
        #expect(lines.map { $0.property("line") } == [1, 2, 3, 4])
        #expect(lines[1].property("error").stringValue?.contains("longer than 1000 bytes") == true)
        #expect(lines[2].property("payload").property("aps").property("alert").property("title") == "xb")
    }

    /// The limit does not depend on how the input was read: a line over it that arrived whole
    /// (in one read, in a large buffer) fails as one that did not.
    @Test(arguments: [1, 13, 1 << 20])
    func aLineOverTheLimitFailsHoweverItWasRead(_ readSize: Int) throws {
        let renderer = BatchRenderer(campaign: campaign, platform: .ios, chunkBytes: 1 << 20, maxLineBytes: 60)
        let (lines, summary) = try runBatch(renderer, [line("a"), line(String(repeating: "z", count: 40)), line("b")].joined(separator: "\n"), readSize: readSize)
        #expect(summary == BatchRenderer.Summary(rendered: 2, aborted: 0, failed: 1, skipped: 0))
        #expect(lines[1].property("error").stringValue?.contains("line 2: longer than 60 bytes") == true, "\(lines[1])")
    }

    @Test(arguments: [1, 2, 5, 9, 10])
    func aResumedRunNumbersItsResultsAsTheFirstRunWould(_ firstLine: Int) throws {
        let text = (1...9).map { $0 % 4 == 0 ? "" : line("n\($0)") }.joined(separator: "\n") + "\n"
        let whole = try runBatch(BatchRenderer(campaign: campaign, platform: .ios, chunkSize: 2), text).lines
        let rest = try runBatch(BatchRenderer(campaign: campaign, platform: .ios, chunkSize: 2, chunkBytes: 64, firstLine: firstLine), text, readSize: 7)
        #expect(rest.lines == Array(whole.dropFirst(firstLine - 1)))
        #expect(rest.summary.lines == max(0, 10 - firstLine))
    }

    /// Numbered input (a partition of a segment): each result carries its line's own number, and
    /// is otherwise the result an unnumbered run over the whole segment gives that line.
    @Test(arguments: [1, 7, 4096])
    func numberedLinesAreNumberedAsTheWholeSegment(_ readSize: Int) throws {
        let long = #"{"profile": {"first_name": "\#(String(repeating: "z", count: 5_000))"}}"#
        let segment = [line("a"), "", long, line("b", n: "1e30"), "{", line("c"), "  ", line("d")]
        let whole = try runBatch(BatchRenderer(campaign: campaign, platform: .ios, chunkSize: 3, chunkBytes: 300, maxLineBytes: 1_000),
                                 segment.joined(separator: "\n") + "\n").lines
        // The segment's even lines, out of order, as a partition after a shuffle; the last without a newline.
        let part = [8, 2, 4, 6]
        var renderer = BatchRenderer(campaign: campaign, platform: .ios, chunkSize: 3, chunkBytes: 300, maxLineBytes: 1_000)
        renderer.numberedInput = true
        let (lines, summary) = try runBatch(renderer, part.map { "\($0)\t" + segment[$0 - 1] }.joined(separator: "\n"), readSize: readSize)
        #expect(lines == part.map { whole[$0 - 1] })
        #expect(lines.map { $0.property("status") } == ["rendered", "skipped", "failed", "rendered"])
        #expect(summary == BatchRenderer.Summary(rendered: 2, aborted: 0, failed: 1, skipped: 1))
        // The limit is the document's: a document of exactly 1,000 bytes is read, one of 1,001 is not.
        let exact = #"{"profile": {"first_name": "\#(String(repeating: "y", count: 1_000 - 31))"}}"#
        #expect(exact.utf8.count == 1_000)
        let limit = try runBatch(renderer, "123456789012345678\t\(exact)\n9\t\(exact) \n", readSize: readSize).lines
        #expect(limit.map { $0.property("line") } == [123_456_789_012_345_678, 9])
        #expect(limit.map { $0.property("status") } == ["rendered", "failed"])
        #expect(limit[1].property("error").stringValue?.contains("line 9: longer than 1000 bytes") == true, "\(limit[1])")
    }

    /// A document given as `base64:` (a line that is not UTF-8, as the Spark job passes it) has
    /// the result an unnumbered run gives its bytes, and the limit counts the bytes, not the base64.
    @Test func base64DocumentsAreReadFromTheirBytes() throws {
        let bad: [UInt8] = Array(#"{"profile": {"first_name": "a"#.utf8) + [0xFF] + Array(#"b"}}"#.utf8)
        let segment = [bad, Array(line("é").utf8), Array(line("c").utf8) + [0x0D], Array(repeating: 0xE9, count: 90)]
        let plain = BatchRenderer(campaign: campaign, platform: .ios, maxLineBytes: 90)
        let expected = try runBatch(plain, bytes: Array(segment.joined(separator: [0x0A]))).lines
        #expect(expected[0].property("error").stringValue?.contains("invalid UTF-8 (byte 0xFF)") == true, "\(expected[0])")
        #expect(expected.map { $0.property("status") } == ["failed", "rendered", "rendered", "failed"])
        var numbered = plain
        numbered.numberedInput = true
        let encoded = segment.enumerated().map { "\($0.offset + 1)\tbase64:" + Data($0.element).base64EncodedString() }
        #expect(try runBatch(numbered, bytes: Array(encoded.joined(separator: "\n").utf8)).lines == expected)
        // 91 bytes in base64 is over the limit of 90 as 91 bytes are.
        let over = try runBatch(numbered, bytes: Array(("7\tbase64:" + Data(repeating: 0x20, count: 91).base64EncodedString()).utf8)).lines
        #expect(over.first?.property("error") == "line 7: longer than 90 bytes (the line limit); not read")
        #expect(try runBatch(numbered, "5\tbase64:@@@@\n").lines.first?.property("error") == "line 5: a base64: document that is not base64")
    }

    @Test(arguments: ["7 {}", "{}", "\t{}", "0\t{}", "-3\t{}", "1234567890123456789\t{}", "12a\t{}", String(repeating: "9", count: 3_000)])
    func aNumberedLineWithoutItsNumberEndsTheRun(_ bad: String) throws {
        var renderer = BatchRenderer(campaign: campaign, platform: .ios, chunkSize: 2, chunkBytes: 300, maxLineBytes: 1_000)
        renderer.numberedInput = true
        #expect(throws: BatchRenderer.NumberedLineError.self) { try runBatch(renderer, "1\t\(line("a"))\n2\t\n\(bad)\n4\t{}\n") }
        do { _ = try runBatch(renderer, "1\t{}\n2\t{}\n\(bad)\n") } catch let error as BatchRenderer.NumberedLineError {
            #expect(error.inputLine == 3)
        }
    }

    @Test func resumingCutsAPartialLastLineOff() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("results.ndjson")
        #expect(try BatchResults.resume(at: file) == 1, "no file yet: from the start")
        try Data(#"{"line":1,"status":"rendered"}"#.utf8 + [0x0A] + #"{"line":2,"status":"skipped"}"#.utf8 + [0x0A] + #"{"line":3,"sta"#.utf8).write(to: file)
        #expect(try BatchResults.resume(at: file) == 3)
        #expect(try String(contentsOf: file, encoding: .utf8) == "{\"line\":1,\"status\":\"rendered\"}\n{\"line\":2,\"status\":\"skipped\"}\n")
        #expect(try BatchResults.resume(at: file) == 3, "a whole file is left as it is")
        try Data(#"{"line":1,"#.utf8).write(to: file)
        #expect(try BatchResults.resume(at: file) == 1)
        #expect(try Data(contentsOf: file).isEmpty)
        try Data("not a result\n".utf8).write(to: file)
        #expect(throws: BatchResults.Failure.self) { try BatchResults.resume(at: file) }
        // A last line longer than a block read.
        let long = #"{"line":41,"error":"\#(String(repeating: "e", count: 200_000))"}"#
        try Data((#"{"line":40}"# + "\n" + long + "\n" + "{\"li").utf8).write(to: file)
        #expect(try BatchResults.resume(at: file) == 42)
    }
}

/// `pushliquid batch` as a process: a run killed part way, then resumed.
@Suite struct BatchCommandReliabilityTests {
    @Test func aKilledRunResumesToTheSameResults() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = (0..<300).map { i in
            i % 50 == 7 ? "" : i % 70 == 3 ? "{broken" :
                #"{"profile": {"external_id": "u\#(i)", "first_name": "n\#(i)", "custom_attributes": {"completed_session_count": 1, "total_session_count": 4}}, "api_trigger_properties": {"next_session_name": "S"}}"#
        }.joined(separator: "\n") + "\n"
        let whole = dir.appendingPathComponent("whole.ndjson")
        let first = try runPushliquid(["batch", "learning-progress", "--output", whole.path], stdin: input)
        #expect(first.status == 4, "\(first.stderr)")  // the broken lines failed
        let expected = try String(contentsOf: whole, encoding: .utf8)
        #expect(expected.split(separator: "\n").count == 300)

        // What a kill leaves: whole lines, then part of one.
        let cut = expected.utf8.count * 2 / 3
        let partial = dir.appendingPathComponent("partial.ndjson")
        try Data(Array(expected.utf8)[..<cut]).write(to: partial)
        let resumed = try runPushliquid(["batch", "learning-progress", "--output", partial.path, "--resume", "--allow-failures"], stdin: input)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try String(contentsOf: partial, encoding: .utf8) == expected)
        #expect(resumed.stderr.contains("from line"))

        // The same by hand, with --from-line on standard output.
        let lastWhole = String(decoding: Array(expected.utf8)[..<cut], as: UTF8.self).split(separator: "\n").dropLast().last!
        guard case .int(let last) = try JSONValueParser.parse(String(lastWhole)).property("line") else {
            Issue.record("no line number in \(lastWhole)")
            return
        }
        let next = last + 1
        let byHand = try runPushliquid(["batch", "learning-progress", "--from-line", String(next), "--allow-failures"], stdin: input)
        #expect(expected.hasSuffix(byHand.stdout) && !byHand.stdout.isEmpty)
    }

    @Test func usageErrors() throws {
        #expect(try runPushliquid(["batch", "learning-progress", "--resume"]).status == 2)
        #expect(try runPushliquid(["batch", "learning-progress", "--from-line", "0"]).status == 2)
        #expect(try runPushliquid(["batch", "learning-progress", "--max-line-bytes", "0"]).status == 2)
        #expect(try runPushliquid(["batch", "learning-progress", "--numbered", "--from-line", "2"]).status == 2)
        #expect(try runPushliquid(["batch", "learning-progress", "--numbered", "--output", "/dev/null", "--resume"]).status == 2)
    }

    /// Any line limit is a limit, up to the largest: none overflows what numbered lines may hold.
    @Test(arguments: [1, 2, 3, 1 << 20, Int.max / 4 * 3, Int.max - 1, Int.max])
    func anyLineLimitWorksWithNumberedInput(_ limit: Int) throws {
        var renderer = BatchRenderer(campaign: BatchReliabilityTests().campaign, platform: .ios, maxLineBytes: limit)
        renderer.numberedInput = true
        let lines = try runBatch(renderer, "3\t\n4\t{\"profile\": {}}\n").lines
        #expect(lines.map { $0.property("line") } == [3, 4])
        #expect(lines[1].property("status") == (limit >= 15 ? "rendered" : "failed"))
        let run = try runPushliquid(["batch", "learning-progress", "--numbered", "--max-line-bytes", String(limit)], stdin: "7\t\n")
        #expect(run.status == 0 && run.stdout.contains(#"{"line":7,"status":"skipped""#), "\(run.stderr)")
    }

    @Test func numberedInputOnTheCommandLine() throws {
        let doc = #"{"profile": {"external_id": "u1", "custom_attributes": {"completed_session_count": 1, "total_session_count": 4}}, "api_trigger_properties": {"next_session_name": "S"}}"#
        let run = try runPushliquid(["batch", "learning-progress", "--numbered"], stdin: "41\t\(doc)\n40\t\n")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.stdout.split(separator: "\n").map { try JSONValueParser.parse(String($0)) }
        #expect(lines.map { $0.property("line") } == [41, 40])
        #expect(lines.map { $0.property("status") } == ["rendered", "skipped"])
        let bad = try runPushliquid(["batch", "learning-progress", "--numbered"], stdin: "1\t{}\n\(doc)\n")
        #expect(bad.status == 1 && bad.stderr.contains("error: input line 2: it does not start with a line number"), "\(bad.stderr)")
    }
}

/// Campaign files are read within limits: aliases cannot make a small file a huge value.
@Suite struct CampaignFileLimitTests {
    @Test func aliasExpansionIsLimited() throws {
        // Nine levels of ten aliases each: a billion values from a file of a few hundred bytes.
        var yaml = "name: laughs\ntitle: t\nbody: b\npreview:\n  api_trigger_properties:\n    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...9 { yaml += "    a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        do {
            _ = try compile(yaml)
            Issue.record("no error for a billion laughs")
        } catch let error as CampaignError {
            #expect(error.message.contains("more than 100000 YAML nodes"), "\(error)")
            #expect(error.location != nil)
        }
    }

    @Test func deeplyNestedFilesLoadOnSmallStacks() throws {
        // As deep as libyaml nests (1,000 levels), loaded on a 512 KB thread: an error, not a crash.
        final class Box: @unchecked Sendable { var message = ""; let done = DispatchSemaphore(value: 0) }
        let box = Box()
        let yaml = "name: deep\ntitle: t\nbody: b\npreview:\n  api_trigger_properties:\n    a: " + String(repeating: "[", count: 995) + String(repeating: "]", count: 995) + "\n"
        let thread = Thread {
            do { _ = try Campaign(yaml: yaml, file: "deep.yml") } catch { box.message = "\(error)" }
            box.done.signal()
        }
        thread.stackSize = 512 << 10
        thread.start()
        box.done.wait()
        #expect(box.message.contains("nested more than 100 deep"), "\(box.message)")
    }

    @Test func deepPreviewValuesAreLimited() throws {
        let yaml = "name: deep\ntitle: t\nbody: b\npreview:\n  api_trigger_properties:\n    a: " + String(repeating: "[", count: 500) + String(repeating: "]", count: 500) + "\n"
        do {
            _ = try compile(yaml)
            Issue.record("no error for a value nested 500 deep")
        } catch let error as CampaignError {
            #expect(error.message.contains("nested more than 100 deep"), "\(error)")
        }
    }
}

/// What renders but not as meant is a warning with its position, in `batch` results too.
@Suite struct RenderWarningTests {
    @Test func warningsReachBatchResultsAndTheLibrary() throws {
        let yaml = "name: w\ntitle: \"{{ ${first_name} | shout }}\"\nbody: \"{% connected_content https://x.example/a %}b\"\n"
        let campaign = try Campaign(yaml: yaml, file: "w.yml")
        let client = FixtureConnectedContentClient(responses: [:])
        let compiled = try CompiledCampaign(campaign, dialect: BrazeDialect(connectedContent: ConnectedContentConfiguration(client: client)), fileText: yaml)
        #expect(compiled.compileWarnings == [CampaignDiagnostic(file: "w.yml", location: SourceLocation(line: 2, column: 28), field: "title",
                                                             message: "unknown filter 'shout' (the value passes through unchanged)")])
        var warnings: [CampaignDiagnostic] = []
        let result = compiled.render(try doc(#"{"profile": {"first_name": "Ana"}}"#), platform: .ios, warnings: &warnings)
        guard case .rendered = result else { Issue.record("\(result)"); return }
        #expect(warnings.count == 1)
        #expect(warnings.first?.location == SourceLocation(line: 3, column: 8))
        #expect(warnings.first?.message.contains("https://x.example/a failed (no offline answer") == true)
        // A batch line carries its warnings.
        let renderer = BatchRenderer(campaign: compiled, platform: .ios)
        var lines = [#"{"profile": {"external_id": "u1"}}"#]
        var results: [String] = []
        _ = try renderer.run(nextLine: { lines.popLast() }, write: { results.append($0) })
        #expect(results.count == 1)
        let line = try JSONValueParser.parse(results.first ?? "")
        #expect(line.property("status") == "rendered")
        #expect(line.property("warnings") == [.string("w.yml:3:8: warning: in body: connected_content: https://x.example/a failed (no offline answer in connected_content.json); nothing inserted")])
    }
}
