import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import Testing

/// A server that never answers: every request waits out its timeout.
struct SilentClient: ConnectedContentClient {
    func send(_ request: ConnectedContentRequest, timeout: TimeInterval) throws -> ConnectedContentResponse {
        Thread.sleep(forTimeInterval: timeout)
        throw ConnectedContentFailure.timeout
    }
}

/// A server that answers at once.
struct InstantClient: ConnectedContentClient {
    func send(_ request: ConnectedContentRequest, timeout: TimeInterval) throws -> ConnectedContentResponse {
        ConnectedContentResponse(status: 200, body: Data(#"{"ok": true}"#.utf8))
    }
}

/// Connected Content calls count against the render's time limit and request limit.
@Suite struct ConnectedContentBudgetTests {
    let doc = try! RenderContextDocument(json: #"{"profile": {"external_id": "u1"}}"#)

    func render(_ source: String, client: any ConnectedContentClient, limits: LiquidLimits, timeout: TimeInterval = 2) throws -> MessageRenderResult {
        let dialect = BrazeDialect(connectedContent: ConnectedContentConfiguration(client: client, retryDelay: 0.05, timeout: timeout))
        return try dialect.environment(limits: limits).parse(source).renderMessage(doc)
    }

    func tags(_ count: Int, _ options: String = "") -> String {
        (0..<count).map { "{% connected_content https://api.example.com/\($0) \(options) :no_cache %}" }.joined()
    }

    @Test func silentServersStopAtTheTimeLimit() throws {
        // 15 silent servers at 0.3 s each would take 4.5 s: the limit's reason says it ended
        // the render first.
        let error = liquidError { _ = try render(tags(15), client: SilentClient(), limits: LiquidLimits(renderSeconds: 1), timeout: 0.3) }
        #expect(error?.reason == .limitExceeded(.renderSeconds(1)))
        #expect(error?.location != nil, "the limit names where the template was")
    }

    @Test func retriesStopAtTheTimeLimit() throws {
        let error = liquidError { _ = try render(tags(1, ":retry"), client: SilentClient(), limits: LiquidLimits(renderSeconds: 1), timeout: 0.3) }
        #expect(error?.reason == .limitExceeded(.renderSeconds(1)))
    }

    @Test func requestsPerRenderAreLimited() throws {
        #expect(try render(tags(10), client: InstantClient(), limits: LiquidLimits()) == .rendered(""))
        let error = liquidError { _ = try render(tags(11), client: InstantClient(), limits: LiquidLimits()) }
        #expect(error?.reason == .limitExceeded(.externalRequests(10)))
    }

    @Test func cachedAnswersAreNotRequests() throws {
        // The same URL fifteen times: one request, fourteen answers from the cache.
        let source = String(repeating: "{% connected_content https://api.example.com/same :save r %}{{ r.ok }}", count: 15)
        #expect(try render(source, client: InstantClient(), limits: LiquidLimits()) == .rendered(String(repeating: "true", count: 15)))
    }

    @Test func aSilentLoopbackServerStopsAtTheTimeLimit() throws {
        let server = try LoopbackHTTPServer { _ in .init(body: "late", delay: 30) }
        defer { server.stop() }
        let dialect = BrazeDialect(connectedContent: ConnectedContentConfiguration(
            client: HTTPConnectedContentClient(allowAnyPort: true), retryDelay: 0.05, timeout: 0.5))
        let source = (0..<15).map { "{% connected_content \(server.baseURL)/\($0) :no_cache %}" }.joined()
        let error = liquidError { _ = try dialect.environment(limits: LiquidLimits(renderSeconds: 1.2)).parse(source).renderMessage(doc) }
        #expect(error?.reason == .limitExceeded(.renderSeconds(1.2)))
    }

    @Test func theCacheIsBounded() throws {
        // URLs with a recipient's attributes in them: one answer each, and the cache keeps at
        // most its bound of them, the newest.
        let cache = ConnectedContentCache(maxEntries: 100, maxBytes: 1 << 20)
        let dialect = BrazeDialect(connectedContent: ConnectedContentConfiguration(client: InstantClient(), cache: cache))
        let template = try dialect.environment().parse("{% connected_content https://api.example.com/u/{{${user_id}}} :save r %}{{ r.ok }}")
        for i in 0..<1_000 {
            let document = try RenderContextDocument(json: #"{"profile": {"external_id": "u\#(i)"}}"#)
            #expect(try template.renderMessage(document) == .rendered("true"))
        }
        #expect(cache.count == 100)
        let small = ConnectedContentCache(maxEntries: 1_000, maxBytes: 50)
        let tiny = BrazeDialect(connectedContent: ConnectedContentConfiguration(client: InstantClient(), cache: small))
        let t = try tiny.environment().parse("{% connected_content https://api.example.com/u/{{${user_id}}} :save r %}")
        for i in 0..<20 { _ = try t.renderMessage(try RenderContextDocument(json: #"{"profile": {"external_id": "u\#(i)"}}"#)) }
        #expect(small.count == 4, "50 bytes hold four 12-byte answers")
    }
}
