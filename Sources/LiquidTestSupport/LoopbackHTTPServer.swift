import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for tests: each connection gets one response from
/// the handler, then is closed. It records every request.
public final class LoopbackHTTPServer: @unchecked Sendable {
    /// A request as received.
    public struct Request: Sendable {
        /// `GET`, `POST`...
        public var method: String
        /// Path and query.
        public var path: String
        /// Headers with lowercased names.
        public var headers: [String: String]
        /// The body.
        public var body: Data
    }

    /// A response to send, after an optional delay.
    public struct Response: Sendable {
        /// Status code.
        public var status: Int
        /// Extra headers.
        public var headers: [String: String]
        /// Body.
        public var body: Data
        /// Seconds to wait before answering.
        public var delay: TimeInterval
        /// A response.
        public init(status: Int = 200, headers: [String: String] = [:], body: String = "", delay: TimeInterval = 0) {
            self.status = status
            self.headers = headers
            self.body = Data(body.utf8)
            self.delay = delay
        }
    }

    /// The port it listens on.
    public let port: UInt16
    private let socketFD: Int32
    private let handler: @Sendable (Request) -> Response
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var stopped = false

    /// The requests received so far.
    public var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts listening on an ephemeral port of 127.0.0.1.
    public init(handler: @escaping @Sendable (Request) -> Response) throws {
        self.handler = handler
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var actual = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.socketFD = fd
        self.port = UInt16(bigEndian: actual.sin_port)
        let thread = Thread { [weak self] in self?.acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting connections.
    public func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        lock.unlock()
        if !wasStopped {
            shutdown(socketFD, Int32(SHUT_RDWR))
            close(socketFD)
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(socketFD, nil, nil)
            if client < 0 { return }
            let thread = Thread { [weak self] in
                self?.serve(client)
                close(client)
            }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        while headerEnd == nil {
            let n = read(client, &chunk, chunk.count)
            if n <= 0 { return }
            buffer += chunk[0..<n]
            if let r = find(Array("\r\n\r\n".utf8), in: buffer) { headerEnd = r }
            if buffer.count > 1_000_000 { return }
        }
        let head = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Array(buffer[(headerEnd! + 4)...])
        while body.count < length {
            let n = read(client, &chunk, chunk.count)
            if n <= 0 { break }
            body += chunk[0..<n]
        }
        let request = Request(method: requestLine.first.map(String.init) ?? "", path: requestLine.count > 1 ? String(requestLine[1]) : "/",
                              headers: headers, body: Data(body))
        lock.lock()
        recorded.append(request)
        lock.unlock()
        let response = handler(request)
        if response.delay > 0 { Thread.sleep(forTimeInterval: response.delay) }
        var text = "HTTP/1.1 \(response.status) Status\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
        for (k, v) in response.headers { text += "\(k): \(v)\r\n" }
        text += "\r\n"
        let bytes = Array(text.utf8) + Array(response.body)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            sent += n
        }
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        return nil
    }
}
