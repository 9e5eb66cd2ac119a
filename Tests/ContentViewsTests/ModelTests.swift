import ContentViews
import Foundation
import Liquid
import Testing

func payload(_ json: String) throws -> LiquidValue { try JSONValueParser.parse(json) }

@Suite struct ProgressModelTests {
    @Test func readsThePayloadAndComputes() throws {
        let m = try ProgressModel(userInfo: try payload(#"{"aps": {}, "completed_session_count": "4", "total_session_count": 6, "next_session_name": "Canvas Flows", "next_session_complete_date": "2026-07-04"}"#))
        #expect(m.completed == 4 && m.total == 6 && !m.isCompleted)
        #expect(abs(m.fraction - 4.0 / 6.0) < 1e-12)
        #expect(m.percent == 66)
        #expect(m.summary() == "4 of 6 sessions · next: Canvas Flows · due Jul 4")
        #expect(m.dueDateText(locale: Locale(identifier: "de_DE"), timeZone: TimeZone(identifier: "Europe/Berlin")!) == "4. Juli")
        #expect(m.bar(width: 12) == "[████████░░░░] 66%")
    }

    @Test func dueDateFollowsTheTimeZone() throws {
        let m = try ProgressModel(userInfo: try payload(#"{"completed_session_count": 1, "total_session_count": 2, "next_session_complete_date": "2026-07-04T23:30:00Z"}"#))
        #expect(m.dueDateText(locale: Locale(identifier: "en_US"), timeZone: TimeZone(identifier: "UTC")!) == "Jul 4")
        #expect(m.dueDateText(locale: Locale(identifier: "en_US"), timeZone: TimeZone(identifier: "Asia/Tokyo")!) == "Jul 5")
    }

    @Test func hugeCountsDoNotOverflow() throws {
        let m = try ProgressModel(userInfo: try payload(#"{"completed_session_count": 9223372036854775806, "total_session_count": 9223372036854775807}"#))
        #expect(m.percent == 99 && !m.isCompleted)
        #expect(m.bar(width: 10) == "[██████████] 99%")
    }

    @Test func completedState() throws {
        let m = try ProgressModel(userInfo: try payload(#"{"completed_session_count": 6, "total_session_count": "6"}"#))
        #expect(m.isCompleted && m.summary() == "All 6 sessions done!")
    }

    @Test func namesEveryBadKey() throws {
        do {
            _ = try ProgressModel(userInfo: try payload(#"{"completed_session_count": "four", "next_session_complete_date": "soon"}"#))
            Issue.record("expected an error")
        } catch let e as ContentViewError {
            #expect(e.problems.map(\.key) == ["completed_session_count", "total_session_count", "next_session_complete_date"])
            #expect(e.problems[0].found == "\"four\"" && e.problems[1].found == "missing")
        }
        #expect(throws: ContentViewError.self) { try ProgressModel(userInfo: try payload(#"{"completed_session_count": 1, "total_session_count": 0}"#)) }
        #expect(throws: ContentViewError.self) { try ProgressModel(userInfo: try payload(#"{"completed_session_count": 7, "total_session_count": 6}"#)) }
    }
}

@Suite struct RegexPatternTests {
    @Test(arguments: [("ana@example.com", true), ("a.b+c@sub.example.co", true), ("ana@", false), ("@x.io", false), ("ana@example", false), ("an a@x.io", false)])
    func emails(_ text: String, _ valid: Bool) throws {
        #expect(try RegexPattern(CaptureKind.email.builtInPattern).matchesWhole(text) == valid)
    }

    @Test(arguments: [("+1 415 555 0100", true), ("(415) 555-0100", true), ("+82-2-5550-1234", true), ("12345", false), ("call me", false)])
    func phones(_ text: String, _ valid: Bool) throws {
        #expect(try RegexPattern(CaptureKind.phone.builtInPattern).matchesWhole(text) == valid)
    }

    @Test func hostilePatternsStopAtTheirLimit() throws {
        let evil = try RegexPattern("(a+)+$", matchLimit: 10_000)
        // (Catastrophic backtracking would take years: the limit's error says it stopped.)
        #expect(throws: RegexPattern.Failure.limitExceeded) { try evil.matchesWhole(String(repeating: "a", count: 40) + "!") }
        #expect(throws: RegexPattern.Failure.self) { try RegexPattern("(unclosed") }
    }
}

@Suite struct CaptureModelTests {
    let info = #"{"braze_id": "b-1", "cert_title": "Liquid Basics", "cert_description": "Get it by mail", "capture_kind": "email"}"#

    @Test func stateMachine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cap-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try AnalyticsStore(directory: dir)
        var m = try CaptureModel(userInfo: try payload(info))
        #expect(m.state == .prompting)
        #expect(!m.availableActions.contains(.register))
        m.edit("ana@")
        #expect(m.state == .editing(text: "ana@", valid: false))
        #expect(!m.availableActions.contains(.register))
        #expect(throws: ContentViewError.self) { try m.perform("REGISTER_ACTION", analytics: store) }
        m.edit("ana@example.com")
        #expect(m.availableActions.first == .register)
        #expect(try m.perform("REGISTER_ACTION", analytics: store) == .doNotDismiss)
        #expect(m.state == .confirmed("ana@example.com"))
        #expect(try m.perform("OPEN_APP_ACTION") == .dismissAndForward)
        #expect(m.state == .dismissed(.dismissAndForward))
        let pending = try store.pending().entries
        #expect(pending.map(\.name) == ["email", "captured_email"])
        #expect(pending.allSatisfy { $0.user == .brazeID("b-1") })
    }

    @Test func actionsMapToDismissalOptions() {
        #expect(CaptureModel.Action.register.dismissal == .doNotDismiss)
        #expect(CaptureModel.Action.close.dismissal == .dismiss)
        #expect(CaptureModel.Action.openApp.dismissal == .dismissAndForward)
    }

    @Test func prefillAndPatternFromThePayload() throws {
        var m = try CaptureModel(userInfo: try payload(#"{"braze_id": "b", "cert_title": "t", "capture_kind": "phone", "capture_pattern": "\\d{4}", "prefill": "1234"}"#))
        #expect(m.state == .editing(text: "1234", valid: true))
        m.edit("12345")
        #expect(m.state == .editing(text: "12345", valid: false))
        #expect(try m.perform("CLOSE_ACTION") == .dismiss)
    }

    @Test func badPayloadsNameEveryKey() throws {
        do {
            _ = try CaptureModel(userInfo: try payload(#"{"capture_kind": "fax", "capture_pattern": "(("}"#))
            Issue.record("expected an error")
        } catch let e as ContentViewError {
            #expect(Set(e.problems.map(\.key)) == ["braze_id", "cert_title", "capture_kind", "capture_pattern"])
        }
    }
}

@Suite struct MatchGameTests {
    @Test func playToAWinAndRecordTheEvent() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("game-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try AnalyticsStore(directory: dir)
        var game = try MatchGameModel(userInfo: try payload(#"{"braze_id": "b-9", "deck": "kiwi,mango,kiwi,mango", "max_turns": "5", "reward": "75"}"#), seed: 7)
        #expect(game.cards.count == 4 && game.status == .playing)
        // Find a mismatch first, then solve.
        let symbols = game.cards.map(\.symbol)
        let a = 0, b = symbols.firstIndex(where: { $0 != symbols[0] })!
        #expect(try game.flip(a) == .flipped)
        #expect(try game.flip(a) == .ignored)
        #expect(try game.flip(b) == .mismatched)
        #expect(game.turns == 1)
        for symbol in Set(symbols).sorted() {
            let idx = symbols.indices.filter { symbols[$0] == symbol }
            #expect(try game.flip(idx[0], analytics: store) == .flipped)
            #expect(try game.flip(idx[1], analytics: store) == .matched)
        }
        #expect(game.status == .won && game.turns == 3)
        let events = try store.pending().entries
        #expect(events.count == 1)
        #expect(events[0].name == "match_game_won" && events[0].value.property("turns") == 3 && events[0].value.property("reward") == 75)
        #expect(try game.flip(0) == .ignored)
    }

    @Test func runningOutOfTurnsLoses() throws {
        var game = try MatchGameModel(userInfo: try payload(#"{"deck": "a,b,a,b", "max_turns": 1}"#), seed: 1)
        let s = game.cards.map(\.symbol)
        let b = s.firstIndex(where: { $0 != s[0] })!
        _ = try game.flip(0)
        #expect(try game.flip(b) == .mismatched)
        #expect(game.status == .lost)
    }

    @Test func badDecks() throws {
        #expect(throws: ContentViewError.self) { try MatchGameModel(userInfo: try payload(#"{"deck": "a,b,a"}"#)) }
        #expect(throws: ContentViewError.self) { try MatchGameModel(userInfo: try payload(#"{"deck": "a,a,a,a"}"#)) }
        #expect(throws: ContentViewError.self) { try MatchGameModel(userInfo: try payload(#"{"max_turns": "x"}"#)) }
    }
}

/// ContentViews.docc's getting-started example, run as written.
@Suite struct ContentViewsDocumentationExampleTests {
    @Test func gettingStarted() throws {
        let payload = try JSONValueParser.parse(#"""
            {"completed_session_count": "4", "total_session_count": "6",
             "next_session_name": "Canvas Flows", "next_session_complete_date": "2026-07-04"}
            """#)
        let progress = try ProgressModel(userInfo: payload)
        #expect("\(progress.completed) of \(progress.total)" == "4 of 6")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try AnalyticsStore(directory: folder.appendingPathComponent("analytics"))
        _ = try store.append(.event("progress_viewed", user: .externalID("user-ana")))
        #expect(try store.pending().entries.count == 1)
    }
}
