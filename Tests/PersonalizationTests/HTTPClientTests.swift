import Foundation
import LibcurlHTTP
import LiquidTestSupport
import Testing

/// The libcurl-backed HTTP client against a real server on loopback.
@Suite(.serialized) struct HTTPClientTests {
    @Test func methodHeadersAndBodyReachTheServer() throws {
        let server = try LoopbackHTTPServer { _ in .init(status: 201, headers: ["Content-Type": "text/csv"], body: "a,b") }
        defer { server.stop() }
        let request = HTTPClient.Request(url: server.baseURL + "/items?x=1", method: "PUT",
                                         headers: [("X-One", "1"), ("X-Empty", "")], body: Data("payload".utf8))
        let response = try HTTPClient.send(request, timeout: 5)
        #expect(response == HTTPClient.Response(status: 201, body: Data("a,b".utf8), contentType: "text/csv"))
        let seen = try #require(server.requests.first)
        #expect(seen.method == "PUT")
        #expect(seen.path == "/items?x=1")
        #expect(seen.headers["x-one"] == "1")
        #expect(seen.headers["x-empty"] == "")
        #expect(seen.headers["expect"] == nil)
        #expect(seen.body == Data("payload".utf8))
    }

    @Test func postWithoutBodySendsAnEmptyOne() throws {
        let server = try LoopbackHTTPServer { _ in .init(body: "ok") }
        defer { server.stop() }
        _ = try HTTPClient.send(.init(url: server.baseURL + "/p", method: "POST"), timeout: 5)
        let seen = try #require(server.requests.first)
        #expect(seen.method == "POST")
        #expect(seen.headers["content-length"] == "0")
    }

    @Test func redirectsAreAnswersNotFollowed() throws {
        let server = try LoopbackHTTPServer { req in
            req.path == "/old" ? .init(status: 302, headers: ["Location": "/new"], body: "") : .init(body: "new")
        }
        defer { server.stop() }
        let response = try HTTPClient.send(.init(url: server.baseURL + "/old"), timeout: 5)
        #expect(response.status == 302)
        #expect(server.requests.map(\.path) == ["/old"])
    }

    @Test func failuresSayWhy() throws {
        let slow = try LoopbackHTTPServer { _ in .init(body: "late", delay: 1) }
        defer { slow.stop() }
        #expect(throws: HTTPClient.Failure.timeout) { try HTTPClient.send(.init(url: slow.baseURL + "/"), timeout: 0.2) }

        let big = try LoopbackHTTPServer { _ in .init(body: String(repeating: "x", count: 100_000)) }
        defer { big.stop() }
        #expect(throws: HTTPClient.Failure.bodyTooLarge(limit: 1000)) {
            try HTTPClient.send(.init(url: big.baseURL + "/"), timeout: 5, maxBodyBytes: 1000)
        }
        #expect(throws: HTTPClient.Failure.invalidHeader("X-Bad")) {
            try HTTPClient.send(.init(url: big.baseURL + "/", headers: [("X-Bad", "a\r\nX-Injected: 1")]), timeout: 5)
        }
        // Nothing listens on port 9 of loopback: a transport failure with libcurl's reason.
        do {
            _ = try HTTPClient.send(.init(url: "http://127.0.0.1:9/"), timeout: 5)
            Issue.record("expected a failure")
        } catch {
            guard case .transport(let message) = error else { Issue.record("\(error)"); return }
            #expect(!message.isEmpty)
        }
    }
}
