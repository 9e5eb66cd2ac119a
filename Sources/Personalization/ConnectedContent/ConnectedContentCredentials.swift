import Crypto
import Foundation
import Liquid

/// A `:auth_credentials` token credential, as Braze keeps them under Settings > Connected
/// Content: headers added to the request (`Authorization: Bearer ...`, `X-App-Token`...), sent
/// only to the allowed domains.
public struct TokenCredential: Sendable, Equatable {
    /// Headers added to every request that names the credential, in order.
    public var headers: [(name: String, value: String)]
    /// Hosts the credential may be sent to: `api.example.com` (that host), `.example.com` or
    /// `*.example.com` (its subdomains, and itself); empty for any host.
    public var allowedDomains: [String]

    /// A credential from its parts.
    public init(headers: [(name: String, value: String)], allowedDomains: [String] = []) {
        self.headers = headers
        self.allowedDomains = allowedDomains
    }

    /// Whether the credential may go to `host`.
    public func allows(host: String) -> Bool {
        guard !allowedDomains.isEmpty else { return true }
        let host = host.lowercased()
        return allowedDomains.contains { pattern in
            var domain = pattern.lowercased()
            if domain.hasPrefix("*.") { domain.removeFirst() }
            if domain.hasPrefix(".") { return host == String(domain.dropFirst()) || host.hasSuffix(domain) }
            return host == domain
        }
    }

    public static func == (a: TokenCredential, b: TokenCredential) -> Bool {
        a.allowedDomains == b.allowedDomains && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }
}

/// Connected Content credentials, kept outside campaign files: `:basic_auth NAME` and
/// `:auth_credentials NAME` find theirs here. Read from a JSON file (or the text of an
/// environment variable) of credentials by name:
///
/// ```json
/// {"shop": {"username": "u", "password": "p"},
///  "catalog_api": {"headers": {"Authorization": "Bearer abc"}, "allowed_domains": ["api.example.com"]}}
/// ```
///
/// A credential with `username` and `password` is a basic one; one with `headers` (and
/// optionally `allowed_domains`) a token one.
public struct ConnectedContentCredentials: Sendable, Equatable {
    /// Basic credentials by name.
    public var basic: [String: BasicAuthCredential] = [:]
    /// Token credentials by name.
    public var tokens: [String: TokenCredential] = [:]

    /// No credentials.
    public init() {}

    /// Credentials from a JSON text; `source` names it in errors (a file's path, an
    /// environment variable).
    /// - Throws: ``PersonalizationError/invalidCredentials(_:)`` naming the credential and what
    ///   is wrong (JSON syntax errors with line and column).
    public init(json: String, source: String) throws {
        let value: LiquidValue
        do { value = try JSONValueParser.parse(json) } catch let e as JSONValueParser.SyntaxError {
            throw PersonalizationError.invalidCredentials("\(source):\(e.line):\(e.column): \(e.message)")
        }
        guard case .object(let all) = value else {
            throw PersonalizationError.invalidCredentials("\(source): credentials are a JSON object of credentials by name")
        }
        func bad(_ name: String, _ message: String) -> PersonalizationError {
            .invalidCredentials("\(source): credential '\(name)': \(message)")
        }
        for (name, spec) in all {
            guard case .object(let o) = spec else { throw bad(name, "must be an object") }
            if o["headers"] != nil {
                guard case .object(let h)? = o["headers"], !h.isEmpty else { throw bad(name, "'headers' must be an object of header names and values") }
                var headers: [(name: String, value: String)] = []
                for (k, v) in h {
                    guard let text = v.stringValue else { throw bad(name, "header '\(k)' must be a string") }
                    guard !k.isEmpty, !(k + text).contains(where: { $0 == "\n" || $0 == "\r" }) else { throw bad(name, "header '\(k)' has a line break or no name") }
                    headers.append((k, text))
                }
                var domains: [String] = []
                if let d = o["allowed_domains"] {
                    guard let list = d.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                        throw bad(name, "'allowed_domains' must be an array of host names")
                    }
                    domains = list.compactMap(\.stringValue)
                }
                tokens[name] = TokenCredential(headers: headers, allowedDomains: domains)
            } else {
                guard let user = o["username"]?.stringValue, let password = o["password"]?.stringValue else {
                    throw bad(name, "needs 'username' and 'password' (a basic credential) or 'headers' (a token credential)")
                }
                basic[name] = BasicAuthCredential(username: user, password: password)
            }
        }
    }

    /// The environment variable that names a credentials file.
    public static let fileVariable = "PUSHLIQUID_CREDENTIALS"
    /// The environment variable that holds credentials' JSON itself.
    public static let jsonVariable = "PUSHLIQUID_CREDENTIALS_JSON"

    /// Credentials from `file` when given, else from the environment: the file that
    /// `PUSHLIQUID_CREDENTIALS` names, or the JSON in `PUSHLIQUID_CREDENTIALS_JSON`; none when
    /// neither is set.
    public static func load(file: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ConnectedContentCredentials {
        if let path = file ?? environment[fileVariable], !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw PersonalizationError.invalidCredentials("\(path): cannot read the credentials file")
            }
            let text: String
            do { text = try SourceText.decode(data, name: path) } catch let e as LiquidError {
                throw PersonalizationError.invalidCredentials("\(path):\(e.location.map { "\($0.line):\($0.column): " } ?? " ")\(e.message)")
            }
            return try ConnectedContentCredentials(json: text, source: path)
        }
        if let json = environment[jsonVariable], !json.isEmpty {
            return try ConnectedContentCredentials(json: json, source: jsonVariable)
        }
        return ConnectedContentCredentials()
    }

    /// The `User-Agent` Braze sends with Connected Content and webhook requests:
    /// `Braze Sender ` and a 40-digit hash (Braze's changes; servers are told to accept any
    /// value that starts with `Braze Sender`).
    public static let brazeUserAgent: String = {
        let digest = Insecure.SHA1.hash(data: Data("PushLiquid Connected Content".utf8))
        return "Braze Sender " + digest.map { String(format: "%02x", $0) }.joined()
    }()
}
