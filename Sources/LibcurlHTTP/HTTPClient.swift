import CLibcurl
import Foundation

/// HTTP requests over libcurl, which is loaded the first time a request is sent: programs
/// that never go online (previews, batches without Connected Content) do not load it or the
/// thirty libraries it depends on, and start faster. Thread-safe.
public enum HTTPClient {
    /// A request.
    public struct Request: Sendable {
        /// An `http` or `https` URL.
        public var url: String
        /// `GET`, `POST` or any other method.
        public var method: String
        /// Header names and values, sent in this order.
        public var headers: [(name: String, value: String)]
        /// The body; `POST` without one sends an empty body.
        public var body: Data?

        /// A request from its parts.
        public init(url: String, method: String = "GET", headers: [(name: String, value: String)] = [], body: Data? = nil) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
        }
    }

    /// A response: redirects are not followed, so a 3xx is a response too.
    public struct Response: Sendable, Equatable {
        /// The HTTP status code.
        public var status: Int
        /// The body.
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
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// No complete answer within the time limit.
        case timeout
        /// The body passed the limit (the transfer stopped there).
        case bodyTooLarge(limit: Int)
        /// A header with a line break in its name or value (it would start another header).
        case invalidHeader(String)
        /// Any other transport failure: no connection, TLS, a malformed URL.
        case transport(String)
        /// libcurl could not be loaded.
        case unavailable(String)

        public var description: String {
            switch self {
            case .timeout: return "timed out"
            case .bodyTooLarge(let limit): return "the body is larger than \(limit) bytes"
            case .invalidHeader(let name): return "header '\(name)' has a line break"
            case .transport(let message): return message
            case .unavailable(let message): return message
            }
        }
    }

    /// Sends `request` and waits for the whole response, at most `timeout` seconds; bodies over
    /// `maxBodyBytes` are refused.
    public static func send(_ request: Request, timeout: TimeInterval, maxBodyBytes: Int = Int.max) throws(Failure) -> Response {
        var lines: [String] = []
        for (name, value) in request.headers {
            if (name + value).utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) { throw .invalidHeader(name) }
            // libcurl removes a header given as "Name:"; "Name;" sends it with an empty value.
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // At least a millisecond, at most a day (and not a trap for Infinity or NaN).
        let timeoutMilliseconds = timeout.isNaN ? 1 : Int(min(max(timeout * 1000, 1), 86_400_000).rounded(.up))
        var response = pl_http_response()
        let outcome = withCStrings(lines) { headers in
            request.url.withCString { url in
                request.method.withCString { method in
                    let body = request.body ?? Data()
                    return body.withUnsafeBytes { bytes in
                        pl_http_perform(url, method, headers.baseAddress, headers.count,
                                        bytes.baseAddress, bytes.count, request.body == nil ? 0 : 1,
                                        timeoutMilliseconds, maxBodyBytes, &response)
                    }
                }
            }
        }
        defer { pl_http_response_free(&response) }
        let message = withUnsafeBytes(of: response.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch outcome {
        case PL_HTTP_OK:
            let body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
            return Response(status: response.status, body: body, contentType: response.content_type.map { String(cString: $0) })
        case PL_HTTP_TIMEOUT: throw .timeout
        case PL_HTTP_BODY_TOO_LARGE: throw .bodyTooLarge(limit: maxBodyBytes)
        case PL_HTTP_UNAVAILABLE: throw .unavailable(message)
        default: throw .transport(message)
        }
    }

    /// Calls `body` with C strings of `strings` that live for the call.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer(body)
    }
}
