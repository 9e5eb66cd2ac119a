import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import Testing

/// Connected Content against a real HTTP server on loopback.
@Suite(.serialized) struct ConnectedContentTests {
    func dialect(_ cache: ConnectedContentCache = ConnectedContentCache(), credentials: [String: BasicAuthCredential] = [:], timeout: TimeInterval = 2) -> BrazeDialect {
        BrazeDialect(connectedContent: ConnectedContentConfiguration(
            client: HTTPConnectedContentClient(allowAnyPort: true), credentials: credentials,
            cache: cache, retryDelay: 0.01, timeout: timeout))
    }

    let doc = try! RenderContextDocument(json: #"{"profile": {"external_id": "u 1", "email": "a+b@x.io"}, "now": "2026-11-22T10:00:00Z"}"#)

    @Test func jsonIsSavedWithStatusAndTextIsInserted() throws {
        let server = try LoopbackHTTPServer { req in
            req.path.hasPrefix("/json") ? .init(body: #"{"city": "Lisbon", "temps": [20, 21]}"#, ) : .init(body: "plain trivia")
        }
        defer { server.stop() }
        let src = "{% connected_content \(server.baseURL)/json?u={{${user_id} | url_param_escape}} :save w %}{{ w.city }} {{ w.temps[1] }} {{ w.__http_status_code__ }}|{% connected_content \(server.baseURL)/text %}"
        #expect(try brazeRender(src, doc, dialect: dialect()) == .rendered("Lisbon 21 200|plain trivia"))
        let first = try #require(server.requests.first)
        #expect(first.path == "/json?u=u%201")
        #expect(first.headers["content-type"] == "application/json")
        #expect(first.headers["accept"] == "*/*")
    }

    @Test func defaultVariableIsConnected() throws {
        let server = try LoopbackHTTPServer { _ in .init(body: #"{"ok": true}"#) }
        defer { server.stop() }
        #expect(try brazeRender("{% connected_content \(server.baseURL)/x %}{{ connected.ok }}", doc, dialect: dialect()) == .rendered("true"))
    }

    @Test func postWithHeadersBodyAndBasicAuth() throws {
        let server = try LoopbackHTTPServer { _ in .init(status: 201, body: #"{"id": 7}"#) }
        defer { server.stop() }
        let src = """
            {% connected_content \(server.baseURL)/items
                 :method post
                 :headers {
                   "X-App-Id": "app-{{${user_id} | size}}"
                 }
                 :body campaign=spring&email={{${email_address}}}
                 :content_type application/json
                 :basic_auth shop
                 :save r %}{{ r.id }}/{{ r.__http_status_code__ }}
            """
        let result = try brazeRender(src, doc, dialect: dialect(credentials: ["shop": BasicAuthCredential(username: "u", password: "p")]))
        #expect(result == .rendered("7/201"))
        let req = try #require(server.requests.first)
        #expect(req.method == "POST")
        #expect(req.headers["x-app-id"] == "app-3")
        #expect(req.headers["authorization"] == "Basic dTpw")
        #expect(req.headers["content-type"] == "application/json")
        #expect(String(decoding: req.body, as: UTF8.self) == #"{"campaign":"spring","email":"a+b@x.io"}"#)
    }

    @Test func getResponsesAreCachedUnlessNoCache() throws {
        let server = try LoopbackHTTPServer { _ in .init(body: #"{"n": 1}"#) }
        defer { server.stop() }
        let cache = ConnectedContentCache()
        let d = dialect(cache)
        for _ in 0..<3 { _ = try brazeRender("{% connected_content \(server.baseURL)/c :save a %}", doc, dialect: d) }
        #expect(server.requests.count == 1)
        #expect(cache.hits == 2)
        for _ in 0..<2 { _ = try brazeRender("{% connected_content \(server.baseURL)/c :no_cache :save a %}", doc, dialect: d) }
        #expect(server.requests.count == 3)
    }

    @Test func cacheEntriesExpire() throws {
        let server = try LoopbackHTTPServer { _ in .init(body: #"{"n": 1}"#) }
        defer { server.stop() }
        let clock = TestClock()
        let d = dialect(ConnectedContentCache(clock: { clock.now }))
        _ = try brazeRender("{% connected_content \(server.baseURL)/e :cache_max_age 900 :save a %}", doc, dialect: d)
        clock.advance(800)
        _ = try brazeRender("{% connected_content \(server.baseURL)/e :cache_max_age 900 :save a %}", doc, dialect: d)
        #expect(server.requests.count == 1)
        clock.advance(200)
        _ = try brazeRender("{% connected_content \(server.baseURL)/e :cache_max_age 900 :save a %}", doc, dialect: d)
        #expect(server.requests.count == 2)
    }

    @Test func notFoundInsertsNothing() throws {
        let server = try LoopbackHTTPServer { _ in .init(status: 404, body: "missing page") }
        defer { server.stop() }
        #expect(try brazeRender("[{% connected_content \(server.baseURL)/nope %}]", doc, dialect: dialect()) == .rendered("[]"))
    }

    @Test func serverErrorsAreRetriedThenAbort() throws {
        let server = try LoopbackHTTPServer { _ in .init(status: 503, body: "down") }
        defer { server.stop() }
        let result = try brazeRender("{% connected_content \(server.baseURL)/down :retry %}", doc, dialect: dialect())
        guard case .aborted(let reason) = result else { Issue.record("expected abort, got \(result)"); return }
        #expect(reason?.contains("failed after retries") == true)
        #expect(server.requests.count == 6)
        // Without :retry, one attempt, nothing inserted.
        let once = try LoopbackHTTPServer { _ in .init(status: 500) }
        defer { once.stop() }
        #expect(try brazeRender("[{% connected_content \(once.baseURL)/x %}]", doc, dialect: dialect()) == .rendered("[]"))
        #expect(once.requests.count == 1)
    }

    @Test func retrySucceedsAfterFailures() throws {
        let counter = Counter()
        let server = try LoopbackHTTPServer { _ in counter.next() < 2 ? .init(status: 502) : .init(body: #"{"v": "third"}"#) }
        defer { server.stop() }
        #expect(try brazeRender("{% connected_content \(server.baseURL)/r :retry :save x %}{{ x.v }}", doc, dialect: dialect()) == .rendered("third"))
        #expect(server.requests.count == 3)
    }

    @Test func slowServersTimeOut() throws {
        let server = try LoopbackHTTPServer { _ in .init(body: #"{"late": true}"#, delay: 1.5) }
        defer { server.stop() }
        // "[]": the answer, 1.5 s late, was not waited for (it would give "[true]").
        #expect(try brazeRender("[{% connected_content \(server.baseURL)/slow :save s %}{{ s.late }}]", doc, dialect: dialect(timeout: 0.5)) == .rendered("[]"))
    }

    @Test func oversizedBodiesAreRefused() throws {
        let server = try LoopbackHTTPServer { _ in .init(body: String(repeating: "x", count: 1_100_000)) }
        defer { server.stop() }
        #expect(try brazeRender("[{% connected_content \(server.baseURL)/big %}]", doc, dialect: dialect()) == .rendered("[]"))
    }

    @Test func portsOtherThan80And443AreRefusedByDefault() throws {
        let client = HTTPConnectedContentClient()
        #expect(throws: ConnectedContentFailure.urlNotAllowed("http://127.0.0.1:9/x")) {
            try client.send(ConnectedContentRequest(url: "http://127.0.0.1:9/x"), timeout: 1)
        }
    }

    @Test func unknownCredentialAbortsAndBadOptionsAreSyntaxErrors() throws {
        let result = try brazeRender("{% connected_content http://127.0.0.1/x :basic_auth nope %}", doc, dialect: dialect())
        #expect(result == .aborted(reason: "connected_content: unknown basic auth credential 'nope'"))
        let error = liquidError { try dialect().environment().parse("{% connected_content http://x :frobnicate %}") }
        #expect(error?.reason == .syntax("connected_content: unknown option ':frobnicate'"))
        #expect(error?.location == SourceLocation(line: 1, column: 31))
    }

    @Test func fixturesAnswerOffline() throws {
        let client = try FixtureConnectedContentClient(json: #"{"https://api.example.com/w": {"body": {"t": 21}}, "https://api.example.com/txt": {"body": "hi"}}"#)
        let d = BrazeDialect(connectedContent: ConnectedContentConfiguration(client: client))
        #expect(try brazeRender("{% connected_content https://api.example.com/w :save w %}{{ w.t }} {% connected_content https://api.example.com/txt %}", doc, dialect: d) == .rendered("21 hi"))
    }
}

final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_795_860_000)
    var now: Date { lock.lock(); defer { lock.unlock() }; return current }
    func advance(_ seconds: TimeInterval) { lock.lock(); current += seconds; lock.unlock() }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func next() -> Int { lock.lock(); defer { n += 1; lock.unlock() }; return n }
}
