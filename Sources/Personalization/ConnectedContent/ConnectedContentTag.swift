import Foundation
import Liquid

/// How `{% connected_content %}` reaches the network.
public struct ConnectedContentConfiguration: Sendable {
    /// The HTTP client (``HTTPConnectedContentClient``, or fixtures for offline previews).
    public var client: any ConnectedContentClient
    /// `:basic_auth NAME` credentials: name to (user, password).
    public var credentials: [String: BasicAuthCredential]
    /// `:auth_credentials NAME` token credentials (a basic credential's name works there too).
    public var tokenCredentials: [String: TokenCredential]
    /// Cached GET responses, shared by every render that uses this configuration.
    public var cache: ConnectedContentCache
    /// Delay before the first retry; it doubles each time (Braze backs off exponentially).
    public var retryDelay: TimeInterval
    /// Time limit of one request (Braze: 2 seconds).
    public var timeout: TimeInterval
    /// The `User-Agent` of every request (Braze's: `Braze Sender` and a hash); a `:headers`
    /// `User-Agent` replaces it.
    public var userAgent: String

    /// A configuration around `client`.
    public init(client: any ConnectedContentClient, credentials: [String: BasicAuthCredential] = [:],
                tokenCredentials: [String: TokenCredential] = [:],
                cache: ConnectedContentCache = ConnectedContentCache(), retryDelay: TimeInterval = 0.2,
                timeout: TimeInterval = ConnectedContentLimits.timeout, userAgent: String = ConnectedContentCredentials.brazeUserAgent) {
        self.client = client
        self.credentials = credentials
        self.tokenCredentials = tokenCredentials
        self.cache = cache
        self.retryDelay = retryDelay
        self.timeout = timeout
        self.userAgent = userAgent
    }

    /// A configuration around `client` with `credentials` (see ``ConnectedContentCredentials``).
    public init(client: any ConnectedContentClient, credentials: ConnectedContentCredentials) {
        self.init(client: client, credentials: credentials.basic, tokenCredentials: credentials.tokens)
    }
}

/// A `:basic_auth` credential.
public struct BasicAuthCredential: Sendable, Equatable {
    /// User name.
    public var username: String
    /// Password.
    public var password: String
    /// A credential.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// Cached Connected Content responses: GETs for 5 minutes by default, `:cache_max_age`
/// between 5 minutes and 4 hours, bodies up to 1 MB; thread-safe.
///
/// The cache is bounded: at most ``maxEntries`` responses and ``maxBytes`` of bodies (URLs
/// often carry a recipient's attributes, so a send to millions of people would otherwise keep
/// millions of answers). The answers stored first go first.
public final class ConnectedContentCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [ConnectedContentRequest: (expires: Date, response: ConnectedContentResponse)] = [:]
    /// Requests in the order they were stored (a request stored again moves to the end: its
    /// older place is skipped when it comes up).
    private var order: [(request: ConnectedContentRequest, expires: Date)] = []
    private var orderStart = 0
    private var bytes = 0
    private let clock: @Sendable () -> Date
    /// The most responses kept.
    public let maxEntries: Int
    /// The most body bytes kept, all responses together.
    public let maxBytes: Int
    /// Requests answered from the cache so far.
    public private(set) var hits = 0

    /// A cache using `clock` for expiry, holding at most `maxEntries` responses and `maxBytes`
    /// bytes of bodies.
    public init(clock: @escaping @Sendable () -> Date = { Date() }, maxEntries: Int = 10_000, maxBytes: Int = 64 << 20) {
        self.clock = clock
        self.maxEntries = max(0, maxEntries)
        self.maxBytes = max(0, maxBytes)
    }

    /// The number of responses held.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }

    func lookup(_ request: ConnectedContentRequest) -> ConnectedContentResponse? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[request] else { return nil }
        if entry.expires <= clock() { remove(request); return nil }
        hits += 1
        return entry.response
    }

    func store(_ response: ConnectedContentResponse, for request: ConnectedContentRequest, maxAge: TimeInterval) {
        guard response.body.count <= ConnectedContentLimits.maxBodyBytes, response.body.count <= maxBytes, maxEntries > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        remove(request)
        let expires = clock().addingTimeInterval(maxAge)
        entries[request] = (expires, response)
        bytes += response.body.count
        order.append((request, expires))
        // Oldest first, until within both bounds (an entry stored again is skipped where it was).
        while entries.count > maxEntries || bytes > maxBytes, orderStart < order.count {
            let oldest = order[orderStart]
            orderStart += 1
            if let entry = entries[oldest.request], entry.expires == oldest.expires { remove(oldest.request) }
        }
        // The order keeps one place per store: past twice the entries, the places of answers
        // evicted, expired or stored again since are dropped.
        if order.count - orderStart > 2 * entries.count + 1024 {
            order = order[orderStart...].filter { entries[$0.request]?.expires == $0.expires }
            orderStart = 0
        }
    }

    /// Forgets `request`'s response (the lock held).
    private func remove(_ request: ConnectedContentRequest) {
        if let old = entries.removeValue(forKey: request) { bytes -= old.response.body.count }
    }
}

/// `{% connected_content URL :save name :method post :body ... :headers {...} :content_type t
/// :basic_auth name :auth_credentials name :cache_max_age s :no_cache :retry %}`.
///
/// The URL, body and headers may hold Liquid. A response that is JSON is stored under `:save`
/// (or `connected`); a JSON object gets `__http_status_code__` (an array or other JSON value
/// cannot have it, as Braze's docs say); any other successful response is inserted as text; a
/// non-2xx answer that is not JSON inserts nothing, with a warning. Transport failures and
/// timeouts insert nothing (a warning), and with `:retry` they and 5xx answers are retried up
/// to five times and then abort the message. A credential that is not configured aborts the
/// message, as Braze's docs say. Every request carries Braze's `User-Agent`.
struct ConnectedContentTag: LiquidTag {
    let name = "connected_content"
    let configuration: ConnectedContentConfiguration?

    struct Options: Sendable {
        var url: LiquidTemplate
        var save: String?
        var method = "GET"
        var body: LiquidTemplate?
        var headers: LiquidTemplate?
        var contentType: String?
        var basicAuth: String?
        var authCredentials: String?
        var cacheMaxAge: TimeInterval?
        var noCache = false
        var retry = false
    }

    struct Node: LiquidNode {
        let options: Options
        let configuration: ConnectedContentConfiguration?
        /// The tag's offset in its template, for warnings.
        let offset: Int
        /// Where the tag is, for the aborts it causes.
        let place: TagPlace

        func render(_ context: RenderContext) throws {
            guard let configuration else {
                throw LiquidError.Reason.custom("connected_content: no HTTP client is configured (use fixtures for offline previews)")
            }
            let request = try makeRequest(context, configuration)
            let useCache = (options.method == "GET" && !options.noCache) || (options.method == "POST" && options.cacheMaxAge != nil)
            let maxAge = min(max(options.cacheMaxAge ?? 300, 300), 14_400)
            var response: ConnectedContentResponse? = useCache ? configuration.cache.lookup(request) : nil
            if response == nil {
                response = try fetch(request, configuration, context)
                if let r = response, useCache, r.status < 500 { configuration.cache.store(r, for: request, maxAge: maxAge) }
            }
            guard let response else { return }
            let text = String(decoding: response.body, as: UTF8.self)
            let success = (200..<300).contains(response.status)
            // JSON of any kind is stored (Braze parses the body; text that is not JSON is
            // inserted); only an object can carry the status code.
            if let json = try? JSONValueParser.parse(text) {
                var value = json
                if case .object(var o) = json {
                    o["__http_status_code__"] = .int(response.status)
                    value = .object(o)
                } else if !success {
                    context.warn("connected_content: \(request.url) answered HTTP \(response.status) with JSON that is not an object; saved without __http_status_code__, so the template cannot tell", at: offset)
                }
                if success == false, case .object = json {
                    context.warn("connected_content: \(request.url) answered HTTP \(response.status); saved with __http_status_code__ \(response.status)", at: offset)
                }
                try context.store(options.save ?? "connected", value)
            } else if success {
                context.write(text)
            } else {
                context.warn("connected_content: \(request.url) answered HTTP \(response.status); nothing inserted", at: offset)
            }
        }

        func makeRequest(_ context: RenderContext, _ configuration: ConnectedContentConfiguration) throws -> ConnectedContentRequest {
            let url = try render(options.url, context).trimmingCharacters(in: .whitespaces)
            var headers: [String: String] = [:]
            if let contentType = options.contentType {
                headers["Content-Type"] = contentType
                headers["Accept"] = contentType
            } else if options.method == "POST" {
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            } else {
                headers["Content-Type"] = "application/json"
                headers["Accept"] = "*/*"
            }
            if let headerTemplate = options.headers {
                let text = try render(headerTemplate, context)
                guard case .object(let o) = (try? JSONValueParser.parse(text)) ?? .nil else {
                    throw LiquidError.Reason.argument("connected_content: :headers must be a JSON object, got \(text)")
                }
                for (k, v) in o { headers[k] = v.renderedString }
            }
            if let name = options.basicAuth {
                guard let credential = configuration.credentials[name] else {
                    throw place.abort("connected_content: unknown basic auth credential '\(name)' (none of that name is configured)")
                }
                headers["Authorization"] = "Basic " + Data("\(credential.username):\(credential.password)".utf8).base64EncodedString()
            }
            if let name = options.authCredentials {
                if let token = configuration.tokenCredentials[name] {
                    let host = URL(string: url)?.host ?? ""
                    guard token.allows(host: host) else {
                        throw place.abort("connected_content: credential '\(name)' may not be sent to \(host.isEmpty ? url : host) (its allowed domains: \(token.allowedDomains.joined(separator: ", ")))")
                    }
                    for (k, v) in token.headers { headers[k] = v }
                } else if let credential = configuration.credentials[name] {
                    headers["Authorization"] = "Basic " + Data("\(credential.username):\(credential.password)".utf8).base64EncodedString()
                } else {
                    throw place.abort("connected_content: unknown credential '\(name)' (none of that name is configured)")
                }
            }
            if !headers.keys.contains(where: { $0.caseInsensitiveCompare("User-Agent") == .orderedSame }) {
                headers["User-Agent"] = configuration.userAgent
            }
            var body: Data?
            if let bodyTemplate = options.body {
                var text = try render(bodyTemplate, context)
                let isJSON = (headers["Content-Type"] ?? "").lowercased().hasPrefix("application/json")
                if isJSON && !text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") && !text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("[") {
                    // A form body with a JSON content type is sent as a JSON object.
                    var object = LiquidObject()
                    for pair in text.split(separator: "&") {
                        let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                        object[String(kv[0])] = .string(kv.count > 1 ? String(kv[1]) : "")
                    }
                    text = LiquidValue.object(object).jsonString
                }
                body = Data(text.utf8)
            }
            return ConnectedContentRequest(url: url, method: options.method, headers: headers, body: body)
        }

        func render(_ template: LiquidTemplate, _ context: RenderContext) throws -> String {
            try context.capture { try context.renderPartial(template, name: "connected_content") }
        }

        /// Sends the request (retried with `:retry`): one of the render's external requests, and
        /// every attempt and pause within the time the render has left (``LiquidLimits``).
        func fetch(_ request: ConnectedContentRequest, _ configuration: ConnectedContentConfiguration, _ context: RenderContext) throws -> ConnectedContentResponse? {
            let attempts = options.retry ? 6 : 1
            var delay = configuration.retryDelay
            var lastProblem = ""
            var left = try context.beginExternalRequest()
            for attempt in 1...attempts {
                do {
                    let response = try configuration.client.send(request, timeout: min(configuration.timeout, left))
                    // A 5xx is retried with :retry; without it, it is an answer like any other
                    // (its JSON object saved with __http_status_code__).
                    if response.status < 500 || !options.retry { return response }
                    lastProblem = "HTTP \(response.status)"
                } catch let failure as ConnectedContentFailure {
                    lastProblem = "\(failure)"
                    // Asking again cannot help these.
                    if case .urlNotAllowed = failure { break }
                    if case .noOfflineAnswer = failure { break }
                }
                if attempt < attempts {
                    // A pause the render has no time for ends it (as a limit, not an abort).
                    left = try context.remainingSeconds()
                    if delay >= left { throw LiquidError.Reason.limitExceeded(.renderSeconds(context.limits.renderSeconds)) }
                    Thread.sleep(forTimeInterval: delay)
                    delay *= 2
                    left = try context.remainingSeconds()
                }
            }
            if options.retry {
                throw place.abort("connected_content: \(request.url) failed after retries (\(lastProblem))")
            }
            context.warn("connected_content: \(request.url) failed (\(lastProblem)); nothing inserted", at: self.offset)
            return nil
        }
    }

    func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode {
        let chunks = splitTagMarkup(tag.markup, baseOffset: tag.markupOffset)
        guard let first = chunks.first, !first.text.hasPrefix(":") else {
            throw LiquidError.Reason.syntax("connected_content needs a URL").at(tag.offset)
        }
        func compile(_ chunk: TagMarkupChunk) throws -> LiquidTemplate {
            do { return try parser.environment.parse(chunk.text, name: "connected_content") } catch let e as LiquidError {
                throw e.reason.at(chunk.offset)
            }
        }
        var urlText = first
        if urlText.text.hasPrefix("[") && urlText.text.hasSuffix("]") { urlText.text = String(urlText.text.dropFirst().dropLast()) }
        var options = Options(url: try compile(urlText))
        var i = 1
        func value(for option: String) throws -> TagMarkupChunk {
            guard i < chunks.count, !chunks[i].text.hasPrefix(":") else {
                throw LiquidError.Reason.syntax("connected_content: \(option) needs a value").at(chunks[i - 1].offset)
            }
            defer { i += 1 }
            return chunks[i]
        }
        while i < chunks.count {
            let option = chunks[i]
            i += 1
            switch option.text {
            case ":save": options.save = try value(for: ":save").text
            case ":method":
                let m = try value(for: ":method").text.uppercased()
                guard m == "GET" || m == "POST" else { throw LiquidError.Reason.syntax("connected_content: :method must be get or post, got '\(m)'").at(option.offset) }
                options.method = m
            case ":body": options.body = try compile(try value(for: ":body"))
            case ":headers": options.headers = try compile(try value(for: ":headers"))
            case ":content_type": options.contentType = try value(for: ":content_type").text
            case ":basic_auth": options.basicAuth = try value(for: ":basic_auth").text
            case ":auth_credentials": options.authCredentials = try value(for: ":auth_credentials").text
            case ":cache_max_age":
                let v = try value(for: ":cache_max_age")
                guard let seconds = TimeInterval(v.text) else { throw LiquidError.Reason.syntax("connected_content: :cache_max_age takes seconds, got '\(v.text)'").at(v.offset) }
                options.cacheMaxAge = seconds
            case ":no_cache": options.noCache = true
            case ":retry": options.retry = true
            default:
                throw LiquidError.Reason.syntax("connected_content: unknown option '\(option.text)'").at(option.offset)
            }
        }
        return Node(options: options, configuration: configuration, offset: tag.offset, place: TagPlace(tag, parser))
    }
}
