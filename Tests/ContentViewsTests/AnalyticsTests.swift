import ContentViews
import Foundation
import Liquid
import LiquidTestSupport
import Testing

func tempStore() throws -> (AnalyticsStore, URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("analytics-\(UUID().uuidString)")
    return (try AnalyticsStore(directory: dir), dir)
}

let t0 = Date(timeIntervalSince1970: 1_795_341_600)  // 2026-11-22T10:00:00Z

@Suite struct TrackRequestTests {
    @Test func bodyGroupsAttributesAndListsEvents() throws {
        let (store, dir) = try tempStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        try store.append(.userAttribute("email", "old@x.io", user: .brazeID("b1"), time: t0))
        try store.append(.customAttribute("tier", "gold", user: .brazeID("b1"), time: t0.addingTimeInterval(1)))
        try store.append(.userAttribute("email", "new@x.io", user: .brazeID("b1"), time: t0.addingTimeInterval(2)))
        try store.append(.event("won", properties: ["turns": 3], user: .externalID("u1"), time: t0.addingTimeInterval(3.5)))
        try store.append(.event("opened", user: .anonymous, time: t0.addingTimeInterval(4)))
        let body = TrackRequest.body(try store.pending().entries, appUser: .externalID("app-user"))
        #expect(body.jsonString == #"{"attributes":[{"braze_id":"b1","email":"new@x.io","tier":"gold"}],"events":[{"external_id":"u1","name":"won","time":"2026-11-22T10:00:03.500Z","properties":{"turns":3}},{"external_id":"app-user","name":"opened","time":"2026-11-22T10:00:04.000Z"}]}"#)
    }
}

@Suite(.serialized) struct AnalyticsSenderTests {
    @Test func sendsOnceAndRemovesOnlyAfterConfirmation() throws {
        let (store, dir) = try tempStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        for i in 0..<3 { try store.append(.event("e\(i)", user: .externalID("u"), time: t0)) }
        let server = try LoopbackHTTPServer { _ in .init(status: 201, body: #"{"message": "success"}"#) }
        defer { server.stop() }
        let sender = AnalyticsSender(store: store, transport: HTTPAnalyticsTransport(endpoint: URL(string: server.baseURL + "/users/track")!, apiKey: "k-1"))
        #expect(try sender.flush() == .sent(3))
        #expect(try store.pending().entries.isEmpty)
        #expect(try sender.flush() == .nothingToSend)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST" && request.path == "/users/track")
        #expect(request.headers["authorization"] == "Bearer k-1")
        #expect(try JSONValueParser.parse(String(decoding: request.body, as: UTF8.self)).property("events").arrayValue?.count == 3)
    }

    @Test func failedSendsKeepEverything() throws {
        let (store, dir) = try tempStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        try store.append(.customAttribute("a", 1, user: .externalID("u"), time: t0))
        let failing = try LoopbackHTTPServer { _ in .init(status: 500, body: "boom") }
        let sender = AnalyticsSender(store: store, transport: HTTPAnalyticsTransport(endpoint: URL(string: failing.baseURL)!, apiKey: "k"))
        guard case .kept(1, let reason) = try sender.flush() else { Issue.record("expected kept"); return }
        #expect(reason.contains("500"))
        failing.stop()
        // Nobody listening at all.
        let down = AnalyticsSender(store: store, transport: HTTPAnalyticsTransport(endpoint: URL(string: failing.baseURL)!, apiKey: "k", timeout: 2))
        guard case .kept(1, _) = try down.flush() else { Issue.record("expected kept"); return }
        #expect(try store.pending().entries.count == 1)
        // The next launch succeeds.
        let ok = try LoopbackHTTPServer { _ in .init(status: 200) }
        defer { ok.stop() }
        #expect(try AnalyticsSender(store: store, transport: HTTPAnalyticsTransport(endpoint: URL(string: ok.baseURL)!, apiKey: "k")).flush() == .sent(1))
    }

    @Test func entriesWrittenDuringASendStayForTheNext() throws {
        let (store, dir) = try tempStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        try store.append(.event("before", user: .externalID("u"), time: t0))
        let server = try LoopbackHTTPServer { _ in
            _ = try? store.append(.event("during", user: .externalID("u"), time: t0))
            return .init(status: 200)
        }
        defer { server.stop() }
        let sender = AnalyticsSender(store: store, transport: HTTPAnalyticsTransport(endpoint: URL(string: server.baseURL)!, apiKey: "k"))
        #expect(try sender.flush() == .sent(1))
        #expect(try store.pending().entries.map(\.name) == ["during"])
    }
}

/// Writers in other processes: concurrent writers, and writers killed mid-write.
@Suite(.serialized) struct AnalyticsDurabilityTests {
    static var writer: URL {
        BuiltProducts.url("analytics-writer", repositoryRoot: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())
    }

    /// Runs the writer; returns the entry numbers it reported committed, and its exit status.
    func runWriter(_ dir: URL, count: Int, crash: (AnalyticsStore.CrashPoint, Int)? = nil, killAfter: TimeInterval? = nil) throws -> (committed: [Int], status: Int32) {
        let p = Process()
        p.executableURL = Self.writer
        p.arguments = [dir.path, String(count)] + (crash.map { [$0.0.rawValue, String($0.1)] } ?? [])
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        if let killAfter {
            Thread.sleep(forTimeInterval: killAfter)
            kill(p.processIdentifier, SIGKILL)
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let committed = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        return (committed, p.terminationStatus)
    }

    /// Storage is readable, nothing committed is lost, nothing is duplicated.
    func verify(_ store: AnalyticsStore, committed: [Int], attempted: Int) throws -> Int {
        let (entries, problems) = try store.pending()
        #expect(problems.isEmpty, "unreadable entries: \(problems)")
        let numbers = entries.compactMap { e -> Int? in if case .int(let n) = e.value.property("n") { return n } else { return nil } }
        #expect(numbers.count == entries.count)
        #expect(Set(numbers).count == numbers.count, "duplicates")
        #expect(Set(committed).isSubset(of: Set(numbers)), "lost committed entries")
        #expect(numbers.allSatisfy { $0 >= 1 && $0 <= attempted })
        return numbers.count
    }

    @Test func everyCrashPointLeavesReadableStorageAndLosesNothing() throws {
        var covered = 0
        for point in AnalyticsStore.CrashPoint.allCases {
            for entry in [1, 3] {
                let (store, dir) = try tempStore()
                defer { try? FileManager.default.removeItem(at: dir) }
                let (committed, status) = try runWriter(dir, count: 5, crash: (point, entry))
                #expect(status == 137, "writer did not stop at \(point)")
                #expect(committed == Array(1..<entry))
                let stored = try verify(store, committed: committed, attempted: 5)
                // Before the rename the entry is not there; from the rename on it is, whole.
                let renamed = [.afterRename, .afterDirectorySync].contains(point)
                #expect(stored == entry - 1 + (renamed ? 1 : 0), "\(point) at \(entry)")
                covered += 1
            }
        }
        #expect(covered == 12)
    }

    @Test func randomKillsNeverCorruptStorage() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<12 {
            let (store, dir) = try tempStore()
            defer { try? FileManager.default.removeItem(at: dir) }
            let (committed, _) = try runWriter(dir, count: 2000, killAfter: Double.random(in: 0.01...0.15, using: &rng))
            _ = try verify(store, committed: committed, attempted: 2000)
        }
    }

    @Test func concurrentWritersLoseNothing() throws {
        let (store, dir) = try tempStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        let group = DispatchGroup()
        nonisolated(unsafe) var results: [[Int]] = [[], [], []]
        for i in 0..<3 {
            group.enter()
            Thread {
                results[i] = (try? self.runWriter(dir, count: 150).committed) ?? []
                group.leave()
            }.start()
        }
        // The app writes at the same time too.
        for i in 0..<50 { try store.append(.event("app", properties: ["i": .int(i)], user: .externalID("app"))) }
        group.wait()
        #expect(results.allSatisfy { $0.count == 150 })
        let entries = try store.pending().entries
        #expect(entries.count == 3 * 150 + 50)
    }
}
