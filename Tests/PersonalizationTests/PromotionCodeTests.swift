import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import Testing

/// `{% promotion('list') %}` over a workspace's code lists and their durable record.
@Suite struct PromotionCodeTests {
    /// A folder with the list `spring` (`count` codes, with a header row) and one to remove.
    func lists(_ count: Int = 5) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("promo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let codes = (1...count).map { String(format: "SPRING-%04d", $0) }
        try ("code\n" + codes.joined(separator: "\r\n") + "\nSPRING-0001\n\n").write(to: dir.appendingPathComponent("spring.csv"), atomically: true, encoding: .utf8)
        return dir
    }

    func doc(_ id: String?, dispatch: String = "d1") throws -> LiquidValue {
        var profile = LiquidObject()
        if let id { profile["external_id"] = .string(id) }
        return ["profile": .object(profile), "campaign": ["api_id": "cmp", "dispatch_id": .string(dispatch)]]
    }

    func recordLines(_ dir: URL) -> [String] {
        (try? String(contentsOf: dir.appendingPathComponent("spring.used"), encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    @Test func eachRecipientGetsItsOwnCodeOncePerSend() throws {
        let dir = try lists()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ledger = PromotionCodeLedger(directory: dir)
        let ana = try ledger.code(for: PromotionCodeAssignment(list: "spring", document: try doc("ana")))
        let bo = try ledger.code(for: PromotionCodeAssignment(list: "spring", document: try doc("bo")))
        #expect(ana == "SPRING-0001" && bo == "SPRING-0002")
        // Asked again (the other platform, a retry, another field): the same code.
        #expect(try ledger.code(for: PromotionCodeAssignment(list: "spring", document: try doc("ana"))) == "SPRING-0001")
        // Another send of the campaign: a new code.
        #expect(try ledger.code(for: PromotionCodeAssignment(list: "spring", document: try doc("ana", dispatch: "d2"))) == "SPRING-0003")
        // A recipient without an id gets a new code each time.
        #expect(try ledger.code(for: PromotionCodeAssignment(list: "spring", document: try doc(nil))) == "SPRING-0004")
        try ledger.sync()
        #expect(recordLines(dir) == [#"["SPRING-0001","cmp|d1||ana"]"#, #"["SPRING-0002","cmp|d1||bo"]"#, #"["SPRING-0003","cmp|d2||ana"]"#, #"["SPRING-0004",null]"#])
        // Another process (a new ledger) reads the record: no code twice, assignments kept.
        let next = PromotionCodeLedger(directory: dir)
        #expect(try next.code(for: PromotionCodeAssignment(list: "spring", document: try doc("bo"))) == "SPRING-0002")
        #expect(try next.code(for: PromotionCodeAssignment(list: "spring", document: try doc("cy"))) == "SPRING-0005")
        #expect(try next.remaining(in: "spring") == 0)
        // Exhausted: no code (the tag aborts the message).
        #expect(try next.code(for: PromotionCodeAssignment(list: "spring", document: try doc("dee"))) == nil)
    }

    @Test func theTagWritesTheCodeAndAnExhaustedListAbortsTheMessage() throws {
        let dir = try lists(1)
        defer { try? FileManager.default.removeItem(at: dir) }
        let dialect = BrazeDialect(promotionCodes: PromotionCodeLedger(directory: dir))
        let template = try dialect.environment().parse("Your code: {% promotion('spring') %} ({% promotion('spring') %})")
        #expect(try template.renderMessage(try RenderContextDocument(value: try doc("ana"))) == .rendered("Your code: SPRING-0001 (SPRING-0001)"))
        #expect(try template.renderMessage(try RenderContextDocument(value: try doc("bo"))) == .aborted(reason: "promotion code list 'spring' has no codes left"))
        let missing = liquidError { _ = try dialect.environment().parse("{% promotion('autumn') %}").renderMessage(try RenderContextDocument(value: try doc("ana"))) }
        #expect(missing?.message == "promotion: promotion code list 'autumn' not found (no \(dir.lastPathComponent)/autumn.csv)")
        let none = liquidError { _ = try BrazeDialect().environment().parse("{% promotion('spring') %}").renderMessage(try RenderContextDocument(value: try doc("ana"))) }
        #expect(none?.message.contains("no promotion code lists are configured") == true)
        for bad in ["{% promotion %}", "{% promotion('spring' %}", "{% promotion('a' 'b') %}"] {
            #expect(liquidError { try dialect.environment(errorMode: .strict).parse(bad) } != nil, "\(bad)")
        }
    }

    @Test func aDryRunUsesNoCode() throws {
        let dir = try lists()
        defer { try? FileManager.default.removeItem(at: dir) }
        let real = PromotionCodeLedger(directory: dir)
        _ = try real.code(for: PromotionCodeAssignment(list: "spring", document: try doc("ana")))
        try real.sync()
        let dry = PromotionCodeLedger(directory: dir, consume: false)
        // What a run would give: ana's recorded code, then the codes after the record's.
        #expect(try dry.code(for: PromotionCodeAssignment(list: "spring", document: try doc("ana"))) == "SPRING-0001")
        #expect(try dry.code(for: PromotionCodeAssignment(list: "spring", document: try doc("bo"))) == "SPRING-0002")
        #expect(try dry.code(for: PromotionCodeAssignment(list: "spring", document: try doc("cy"))) == "SPRING-0003")
        #expect(try dry.code(for: PromotionCodeAssignment(list: "spring", document: try doc("bo"))) == "SPRING-0002")
        try dry.sync()
        #expect(recordLines(dir).count == 1)
        let fresh = PromotionCodeLedger(directory: dir, consume: false, readRecord: false)
        #expect(try fresh.code(for: PromotionCodeAssignment(list: "spring", document: try doc("zed"))) == "SPRING-0001")
    }

    @Test func threadsNeverShareACode() throws {
        let dir = try lists(4000)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ledger = PromotionCodeLedger(directory: dir)
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            for i in 0..<500 {
                let assignment = PromotionCodeAssignment(list: "spring", key: "t\(t)-\(i)")
                results.add(try! ledger.code(for: assignment)!)
            }
        }
        try ledger.sync()
        #expect(results.codes.count == 4000 && Set(results.codes).count == 4000)
        #expect(recordLines(dir).count == 4000)
    }

    @Test func aTornLastLineIsCutOffAndItsCodeHandedOut() throws {
        let dir = try lists()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A writer killed mid-line (before any sync, so before any payload was written).
        try #"["SPRING-0001","cmp|d1||ana"]"#.appending("\n[\"SPRING-00").write(to: dir.appendingPathComponent("spring.used"), atomically: true, encoding: .utf8)
        let ledger = PromotionCodeLedger(directory: dir)
        #expect(try ledger.code(for: PromotionCodeAssignment(list: "spring", key: "bo")) == "SPRING-0002")
        try ledger.sync()
        #expect(recordLines(dir) == [#"["SPRING-0001","cmp|d1||ana"]"#, #"["SPRING-0002","bo"]"#])
    }

    @Test func codeListsAreReadAsBrazesUpload() throws {
        #expect(try PromotionCodeLedger.codes(csv: "Code\nA1\n B2 \n\nA1\n", display: "x.csv") == ["A1", "B2"])
        #expect(try PromotionCodeLedger.codes(csv: "A1\nB2", display: "x.csv") == ["A1", "B2"])
        #expect(throws: PromotionCodeError.invalidList("x.csv:2:3: one code per row (this row has 2 cells)")) {
            try PromotionCodeLedger.codes(csv: "A1\nB2,C3\n", display: "x.csv")
        }
        #expect(throws: PromotionCodeError.self) { try PromotionCodeLedger.codes(csv: "A1\n\"B2\n", display: "x.csv") }
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var codes: [String] = []
    func add(_ code: String) { lock.lock(); codes.append(code); lock.unlock() }
}
