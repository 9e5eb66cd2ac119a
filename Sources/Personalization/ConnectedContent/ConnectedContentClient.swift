import Foundation
import LibcurlHTTP

/// One HTTP request of a `{% connected_content %}` tag.
public struct ConnectedContentRequest: Sendable, Hashable {
    /// The URL, after Liquid rendering.
    public var url: String
    /// `GET` or `POST`.
    public var method: String
    /// Headers, in a stable order.
    public var headers: [String: String]
    /// The body of a POST.
    public var body: Data?

    /// A request from its parts.
    public init(url: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

/// A response: status, body and content type.
public struct ConnectedContentResponse: Sendable, Equatable {
    /// HTTP status code.
    public var status: Int
    /// The body (at most ``ConnectedContentLimits/maxBodyBytes``).
    public var body: Data
    /// The `Content-Type` header, if any.
    public var contentType: String?

    /// A response from its parts.
    public init(status: Int, body: Data, contentType: String? = nil) {
        self.status = status
        self.body = body
        self.contentType = contentType
    }
}

/// Why a request gave no response.
public enum ConnectedContentFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer within the time limit.
    case timeout
    /// The body was larger than the limit (the limit, in bytes).
    case bodyTooLarge(Int)
    /// A URL that is not http(s), or a port other than 80 and 443 (unless allowed).
    case urlNotAllowed(String)
    /// Any other transport failure.
    case transport(String)
    /// Offline answers (fixtures) have none for this URL.
    case noOfflineAnswer(String)

    public var description: String {
        switch self {
        case .timeout: return "timed out"
        case .bodyTooLarge(let limit): return "body larger than \(limit) bytes"
        case .urlNotAllowed(let url): return "URL not allowed: \(url) (http or https, ports 80 and 443)"
        case .transport(let message): return message
        case .noOfflineAnswer: return "no offline answer in connected_content.json"
        }
    }
}

/// Braze's limits for Connected Content.
public enum ConnectedContentLimits {
    /// Responses must arrive within 2 seconds.
    public static let timeout: TimeInterval = 2
    /// Bodies over 1 MB are refused.
    public static let maxBodyBytes = 1_000_000
}

/// Sends Connected Content requests. Implementations must be thread-safe.
public protocol ConnectedContentClient: Sendable {
    /// Sends `request`, waiting at most `timeout` seconds; throws ``ConnectedContentFailure``.
    func send(_ request: ConnectedContentRequest, timeout: TimeInterval) throws -> ConnectedContentResponse
}

/// A real HTTP client (libcurl, loaded on the first request): no redirects followed, bodies
/// capped at 1 MB, and (as Braze does) only ports 80 and 443 unless `allowAnyPort` is set
/// (tests on loopback).
public struct HTTPConnectedContentClient: ConnectedContentClient {
    private let allowAnyPort: Bool

    /// A client; `allowAnyPort` lifts the 80/443 rule.
    public init(allowAnyPort: Bool = false) {
        self.allowAnyPort = allowAnyPort
    }

    public func send(_ request: ConnectedContentRequest, timeout: TimeInterval) throws -> ConnectedContentResponse {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw ConnectedContentFailure.urlNotAllowed(request.url)
        }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        if !allowAnyPort && port != 80 && port != 443 { throw ConnectedContentFailure.urlNotAllowed(request.url) }
        let http = HTTPClient.Request(url: request.url, method: request.method,
                                      headers: request.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                                      body: request.body)
        do {
            let response = try HTTPClient.send(http, timeout: timeout, maxBodyBytes: ConnectedContentLimits.maxBodyBytes)
            return ConnectedContentResponse(status: response.status, body: response.body, contentType: response.contentType)
        } catch {
            switch error {
            case .timeout: throw ConnectedContentFailure.timeout
            case .bodyTooLarge(let limit): throw ConnectedContentFailure.bodyTooLarge(limit)
            default: throw ConnectedContentFailure.transport(error.description)
            }
        }
    }
}

/// Answers from fixtures instead of the network, for offline previews and tests: a JSON file
/// `{"https://api.example.com/x": {"status": 200, "body": {...} or "text"}}`. A URL without an
/// answer fails with ``ConnectedContentFailure/noOfflineAnswer(_:)`` (a warning; nothing inserted).
public struct FixtureConnectedContentClient: ConnectedContentClient {
    /// Responses by URL.
    public var responses: [String: ConnectedContentResponse]

    /// Fixtures from a dictionary.
    public init(responses: [String: ConnectedContentResponse]) { self.responses = responses }

    /// Fixtures from a JSON file's text.
    public init(json: String) throws {
        guard case .object(let o) = try JSONValueParser.parse(json) else {
            throw PersonalizationError.invalidDocument("Connected Content fixtures must be a JSON object of URL to response")
        }
        var responses: [String: ConnectedContentResponse] = [:]
        for (url, spec) in o {
            let status: Int
            if case .int(let s) = spec.property("status") { status = s } else { status = 200 }
            let body = spec.property("body")
            let text: String
            if case .string(let s) = body { text = s } else { text = body.jsonString }
            responses[url] = ConnectedContentResponse(status: status, body: Data(text.utf8), contentType: body.stringValue == nil ? "application/json" : "text/plain")
        }
        self.responses = responses
    }

    public func send(_ request: ConnectedContentRequest, timeout: TimeInterval) throws -> ConnectedContentResponse {
        guard let response = responses[request.url] else { throw ConnectedContentFailure.noOfflineAnswer(request.url) }
        return response
    }
}

import Liquid
