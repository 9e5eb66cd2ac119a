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
        #expect(result == .aborted(reason: "connected_content: unknown basic auth credential 'nope' (none of that name is configured)"))
        let error = liquidError { try dialect().environment().parse("{% connected_content http://x :frobnicate %}") }
        #expect(error?.reason == .syntax("connected_content: unknown option ':frobnicate'"))
        #expect(error?.location == SourceLocation(line: 1, column: 31))
    }

    @Test func tokenCredentialsSendTheirHeadersToAllowedDomainsOnly() throws {
        let server = try LoopbackHTTPServer { _ in .init(body: #"{"ok": 1}"#) }
        defer { server.stop() }
        var d = dialect()
        d.connectedContent?.tokenCredentials = [
            "api": TokenCredential(headers: [("Authorization", "Bearer t0k3n"), ("X-App-Id", "app-1")], allowedDomains: ["127.0.0.1"]),
            "elsewhere": TokenCredential(headers: [("Authorization", "Bearer other")], allowedDomains: ["*.example.com"]),
        ]
        d.connectedContent?.credentials = ["shop": BasicAuthCredential(username: "u", password: "p")]
        let src = "{% connected_content \(server.baseURL)/t :method post :auth_credentials api :body a=1 :content_type application/json :save r %}{{ r.ok }}"
        #expect(try brazeRender(src, doc, dialect: d) == .rendered("1"))
        let req = try #require(server.requests.first)
        #expect(req.headers["authorization"] == "Bearer t0k3n")
        #expect(req.headers["x-app-id"] == "app-1")
        // A basic credential's name works with :auth_credentials too.
        _ = try brazeRender("{% connected_content \(server.baseURL)/b :auth_credentials shop :save r %}", doc, dialect: d)
        #expect(server.requests.last?.headers["authorization"] == "Basic dTpw")
        // Never sent to a host the credential does not allow; a missing one aborts (Braze's docs).
        let refused = try brazeRender("{% connected_content \(server.baseURL)/x :auth_credentials elsewhere %}", doc, dialect: d)
        #expect(refused == .aborted(reason: "connected_content: credential 'elsewhere' may not be sent to 127.0.0.1 (its allowed domains: *.example.com)"))
        #expect(try brazeRender("{% connected_content \(server.baseURL)/x :auth_credentials gone %}", doc, dialect: d)
                == .aborted(reason: "connected_content: unknown credential 'gone' (none of that name is configured)"))
        #expect(server.requests.count == 2)
        #expect(TokenCredential(headers: [], allowedDomains: [".example.com"]).allows(host: "api.example.com"))
        #expect(TokenCredential(headers: [], allowedDomains: [".example.com"]).allows(host: "example.com"))
        #expect(!TokenCredential(headers: [], allowedDomains: ["example.com"]).allows(host: "evil-example.com"))
    }

    @Test func requestsCarryBrazesUserAgent() throws {
        let server = try LoopbackHTTPServer { _ in .init(body: "x") }
        defer { server.stop() }
        _ = try brazeRender("{% connected_content \(server.baseURL)/ua %}", doc, dialect: dialect())
        let agent = try #require(server.requests.first?.headers["user-agent"])
        #expect(agent.hasPrefix("Braze Sender "))
        #expect(agent.count == "Braze Sender ".count + 40 && agent.dropFirst(13).allSatisfy(\.isHexDigit))
        _ = try brazeRender("{% connected_content \(server.baseURL)/ua2 :headers {\"User-Agent\": \"mine\"} %}", doc, dialect: dialect())
        #expect(server.requests.last?.headers["user-agent"] == "mine")
    }

    @Test func statusCodesFollowTheDocs() throws {
        let server = try LoopbackHTTPServer { req in
            switch req.path {
            case "/array": return .init(body: #"[{"id": 1}, {"id": 2}]"#)
            case "/array404": return .init(status: 404, body: #"[]"#)
            case "/object404": return .init(status: 404, body: #"{"error": "no user"}"#)
            case "/object500": return .init(status: 500, body: #"{"error": "down"}"#)
            case "/number": return .init(body: "42")
            default: return .init(status: 410, body: "gone")
            }
        }
        defer { server.stop() }
        func render(_ path: String, _ rest: String) throws -> (MessageRenderResult, [String]) {
            let template = try dialect().environment().parse("{% connected_content \(server.baseURL)\(path) :save r %}\(rest)")
            let context = template.makeContext(doc.value, options: doc.renderOptions())
            try template.render(into: context)
            return (.rendered(context.output), context.warnings.map(\.message))
        }
        // An array is saved, without __http_status_code__ (it cannot carry one).
        let array = try render("/array", "{{ r.size }} {{ r[1].id }} [{{ r.__http_status_code__ }}]")
        #expect(array.0 == .rendered("2 2 []") && array.1.isEmpty)
        // A non-2xx object is saved with its status, so the docs' check works; and it is noted.
        let object = try render("/object404", "{% if r.__http_status_code__ != 200 %}status {{ r.__http_status_code__ }}: {{ r.error }}{% endif %}")
        #expect(object.0 == .rendered("status 404: no user"))
        #expect(object.1.count == 1 && object.1[0].contains("answered HTTP 404; saved with __http_status_code__ 404"))
        // Without :retry a 5xx is an answer like any other.
        #expect(try render("/object500", "{{ r.__http_status_code__ }}").0 == .rendered("500"))
        // A non-2xx array: saved, and a warning says the status is not visible.
        let array404 = try render("/array404", "{{ r.size }}")
        #expect(array404.0 == .rendered("0") && array404.1.first?.contains("JSON that is not an object") == true)
        // Any JSON is saved rather than inserted (text that is not JSON is inserted).
        #expect(try render("/number", "[{{ r | plus: 1 }}]").0 == .rendered("[43]"))
        let gone = try render("/gone", "[{{ r }}]")
        #expect(gone.0 == .rendered("[]") && gone.1.first?.contains("answered HTTP 410; nothing inserted") == true)
    }

    @Test func credentialsFromAFileOrTheEnvironment() throws {
        let json = #"{"shop": {"username": "u", "password": "p"}, "api": {"headers": {"Authorization": "Bearer x"}, "allowed_domains": ["api.example.com"]}}"#
        let loaded = try ConnectedContentCredentials.load(environment: [ConnectedContentCredentials.jsonVariable: json])
        #expect(loaded.basic["shop"] == BasicAuthCredential(username: "u", password: "p"))
        #expect(loaded.tokens["api"]?.headers.first?.value == "Bearer x")
        #expect(loaded.tokens["api"]?.allowedDomains == ["api.example.com"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cred-\(UUID().uuidString).json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try ConnectedContentCredentials.load(environment: [ConnectedContentCredentials.fileVariable: file.path]) == loaded)
        #expect(try ConnectedContentCredentials.load(file: file.path, environment: [:]) == loaded)
        #expect(try ConnectedContentCredentials.load(environment: [:]) == ConnectedContentCredentials())
        for bad in [#"{"x": {"username": "u"}}"#, #"{"x": {"headers": {"A": 1}}}"#, #"{"x": {"headers": {"A": "v"}, "allowed_domains": "one"}}"#, "[1]", "{\n  \"x\": }"] {
            #expect(throws: PersonalizationError.self) { try ConnectedContentCredentials(json: bad, source: "c.json") }
        }
        #expect(throws: PersonalizationError.invalidCredentials("c.json:2:8: unexpected character")) {
            try ConnectedContentCredentials(json: "{\n  \"x\": }", source: "c.json")
        }
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
