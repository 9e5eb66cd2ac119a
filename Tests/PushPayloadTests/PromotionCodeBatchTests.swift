import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import PushPayload
import Testing

/// Promotion codes in batches: never a code twice across threads, processes and a run killed
/// and resumed; each payload's code recorded before the payload is written.
@Suite(.serialized) struct PromotionCodeBatchTests {
    /// A workspace with a campaign that shows a code, and a list of `codes` codes.
    func workspace(codes: Int) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("promo-ws-\(UUID().uuidString)")
        for folder in ["Templates", "PromotionCodes"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try """
            name: promo
            campaign: {api_id: cmp-promo}
            title: "Your code: {% promotion('spring') %}"
            body: "Hi {{${first_name} | default: 'there'}}"
            key_value_pairs:
              code: "{% promotion('spring') %}"
            """.write(to: root.appendingPathComponent("Templates/promo.yml"), atomically: true, encoding: .utf8)
        let list = (1...codes).map { String(format: "C%06d", $0) }.joined(separator: "\n")
        try ("code\n" + list + "\n").write(to: root.appendingPathComponent("PromotionCodes/spring.csv"), atomically: true, encoding: .utf8)
        return root
    }

    func contexts(_ range: ClosedRange<Int>) -> String {
        range.map { #"{"profile": {"external_id": "u\#($0)", "first_name": "N\#($0)"}}"# }.joined(separator: "\n") + "\n"
    }

    /// The code of each rendered result line, by external id.
    func codes(_ output: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let result = try JSONValueParser.parse(String(line))
            guard result.property("status") == "rendered" else { continue }
            let code = try #require(result.property("payload").property("code").stringValue)
            #expect(result.property("payload").property("aps").property("alert").property("title").stringValue == "Your code: \(code)")
            out[try #require(result.property("external_id").stringValue)] = code
        }
        return out
    }

    func record(_ root: URL) throws -> [String] {
        try String(contentsOf: root.appendingPathComponent("PromotionCodes/spring.used"), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func twoProcessesAtOnceNeverHandOutACodeTwice() throws {
        let root = try workspace(codes: 12_000)
        defer { try? FileManager.default.removeItem(at: root) }
        let campaign = root.appendingPathComponent("Templates/promo.yml").path
        let outputs = ResultsBox()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let range = i == 0 ? 1...5_000 : 5_001...10_000
            let r = try! runPushliquid(["batch", campaign], stdin: contexts(range))
            outputs.set(i, r.status == 0 ? r.stdout : "FAILED: \(r.stderr)")
        }
        let first = try codes(outputs.get(0)), second = try codes(outputs.get(1))
        #expect(first.count == 5_000 && second.count == 5_000)
        let all = Array(first.values) + Array(second.values)
        #expect(Set(all).count == 10_000, "a code was handed out twice")
        #expect(try record(root).count == 10_000)
    }

    @Test func aRunKilledMidwayAndResumedGivesEveryRecipientOneCode() throws {
        let root = try workspace(codes: 30_000)
        defer { try? FileManager.default.removeItem(at: root) }
        let output = root.appendingPathComponent("results.ndjson")
        let process = Process()
        process.executableURL = TestPaths.pushliquidBinary
        process.arguments = ["batch", root.appendingPathComponent("Templates/promo.yml").path, "--output", output.path]
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Two chunks' worth of lines, and then no more: the first chunk's results are written,
        // the second's rendered (its codes recorded) and held, the run waiting for input.
        input.fileHandleForWriting.write(Data(contexts(1...9_000).utf8))
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, ((try? Data(contentsOf: output))?.count ?? 0) == 0 { usleep(20_000) }
        usleep(200_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let written = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let before = try codes(written.split(separator: "\n").dropLast(written.hasSuffix("\n") ? 0 : 1).joined(separator: "\n"))
        #expect(!before.isEmpty, "the killed run wrote no results")
        // Every code written is in the record (recorded before its payload was written).
        let recorded = Set(try record(root).compactMap { try JSONValueParser.parse($0).arrayValue?.first?.stringValue })
        #expect(Set(before.values).isSubset(of: recorded))
        #expect(recorded.count > before.count, "the held chunk's codes were recorded too")
        // Resumed over the whole input: each recipient's result once, each with its own code,
        // the held chunk's recipients given the codes the record already holds for them.
        let resumed = try runPushliquid(["batch", root.appendingPathComponent("Templates/promo.yml").path, "--output", output.path, "--resume"],
                                        stdin: contexts(1...20_000))
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let final = try String(contentsOf: output, encoding: .utf8)
        let lines = try final.split(separator: "\n").map { try JSONValueParser.parse(String($0)).property("line") }
        #expect(lines == (1...20_000).map { .int($0) })
        let after = try codes(final)
        #expect(after.count == 20_000)
        #expect(Set(after.values).count == 20_000, "a code was handed out twice")
        for (id, code) in before { #expect(after[id] == code) }
        #expect(try record(root).count == 20_000, "no code was used up without a recipient")
    }

    @Test func eachChunksCodesAreSyncedBeforeItsResultsAreWritten() throws {
        let source = WatchingSource()
        let campaign = try CompiledCampaign(try Campaign(yaml: "name: p\ntitle: \"{% promotion('x') %}\"\nbody: b\n", file: "p.yml"),
                                            dialect: BrazeDialect(promotionCodes: source))
        let renderer = BatchRenderer(campaign: campaign, platform: .android, chunkSize: 100, workers: 2)
        let input = Array(contexts(1...1_000).utf8)
        var offset = 0, writes = 0
        _ = try renderer.run(read: { buffer in
            let n = min(buffer.count, input.count - offset, 3_000)
            input.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
            offset += n
            return n
        }, write: { bytes in
            writes += 1
            // Every code in what is written was synced first.
            let text = String(decoding: bytes, as: UTF8.self)
            for line in text.split(separator: "\n") {
                let code = try JSONValueParser.parse(String(line)).property("payload").property("t").stringValue ?? ""
                #expect(source.isSynced(code), "\(code) written before it was synced")
            }
        })
        #expect(writes >= 10 && source.syncs >= 10)
        // A single render syncs before it returns the payload.
        guard case .rendered(let p) = campaign.render(try RenderContextDocument(json: #"{"profile": {"external_id": "solo"}}"#), platform: .ios) else { Issue.record("not rendered"); return }
        #expect(source.isSynced(p.fields[0].text))
        // A sync that fails: the payload is not handed back.
        source.failing = true
        guard case .failed(let error) = campaign.render(try RenderContextDocument(json: #"{"profile": {"external_id": "late"}}"#), platform: .ios) else { Issue.record("rendered without a durable code"); return }
        #expect(error.description.contains("must not be sent"))
    }
}

final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int: String] = [:]
    func set(_ i: Int, _ v: String) { lock.lock(); values[i] = v; lock.unlock() }
    func get(_ i: Int) -> String { lock.lock(); defer { lock.unlock() }; return values[i] ?? "" }
}

/// A code source that records which codes have been synced.
final class WatchingSource: PromotionCodeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var handedOut: [String] = []
    private var synced = Set<String>()
    private(set) var syncs = 0
    var failing = false

    func code(for assignment: PromotionCodeAssignment) throws -> String? {
        lock.lock(); defer { lock.unlock() }
        next += 1
        handedOut.append("K\(next)")
        return "K\(next)"
    }

    func sync() throws {
        lock.lock(); defer { lock.unlock() }
        if failing { throw PromotionCodeError.ledger("disk full") }
        synced.formUnion(handedOut)
        syncs += 1
    }

    func isSynced(_ code: String) -> Bool { lock.lock(); defer { lock.unlock() }; return synced.contains(code) }
}
