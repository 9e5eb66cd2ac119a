import Foundation
import Hummingbird
import Liquid
import PushPayload

/// The workspace's change count: a poller compares the files' sizes and modification times a
/// few times a second and counts each change; open pages are told over server-sent events.
public actor ChangeFeed {
    /// How many changes were seen since the studio started.
    public private(set) var version = 0
    private var last: [String: String]

    /// A feed that starts from `fingerprint`.
    public init(fingerprint: [String: String]) { last = fingerprint }

    /// Records `fingerprint`; the version goes up when it differs from the last one.
    public func observe(_ fingerprint: [String: String]) {
        if fingerprint != last {
            last = fingerprint
            version += 1
        }
    }
}

/// `pushliquid studio`: the page and its API over Hummingbird, on loopback only.
public struct StudioServer: Sendable {
    /// The workspace shown.
    public let workspace: StudioWorkspace
    /// The port (0: any free port).
    public let port: Int
    /// How often the files are looked at.
    public var pollInterval: Duration = .milliseconds(150)

    /// A server for `workspace` on `127.0.0.1:port`.
    public init(workspace: StudioWorkspace, port: Int) {
        self.workspace = workspace
        self.port = port
    }

    /// Serves until the process is stopped (SIGINT, SIGTERM); `onRunning` gets the page's URL
    /// once the server listens.
    public func run(onRunning: @escaping @Sendable (String) -> Void) async throws {
        let workspace = self.workspace
        let feed = ChangeFeed(fingerprint: workspace.fingerprint())
        let interval = pollInterval
        let poller = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await feed.observe(workspace.fingerprint())
            }
        }
        defer { poller.cancel() }
        let router = Router()
        router.get("/") { _, _ -> Response in
            Self.response(StudioPage.html(snapshot: nil, exportLinks: nil), type: "text/html; charset=utf-8")
        }
        router.get("/api/campaigns") { _, _ -> Response in
            Self.json(["campaigns": .array(workspace.campaigns().map { .string($0) }),
                       "default": workspace.defaultCampaign().map { .string($0) } ?? .nil])
        }
        router.get("/api/snapshot") { request, _ -> Response in
            guard let name = request.uri.queryParameters.get("campaign") ?? workspace.defaultCampaign() else {
                return Self.json(["error": "the workspace has no campaigns (Templates/*.yml)"], status: .notFound)
            }
            var snapshot = workspace.snapshot(campaign: name)
            if case .object(var o) = snapshot {
                o["version"] = .int(await feed.version)
                snapshot = .object(o)
            }
            return Self.json(snapshot)
        }
        router.get("/api/capture") { request, _ -> Response in
            let q = request.uri.queryParameters
            guard let campaign = q.get("campaign"), let profile = q.get("profile"),
                  let platform = q.get("platform").flatMap(Platform.init(rawValue:)) else {
                return Self.json(["error": "campaign, profile and platform (ios or android) are needed"], status: .badRequest)
            }
            let action = q.get("action").flatMap { $0.isEmpty ? nil : $0 }
            return Self.json(workspace.capture(campaign: campaign, profile: profile, platform: platform, value: q.get("value") ?? "", action: action))
        }
        router.get("/api/version") { _, _ -> Response in Self.json(["version": .int(await feed.version)]) }
        router.get("/api/events") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                var sent = await feed.version
                try await writer.write(ByteBuffer(string: "retry: 500\ndata: \(sent)\n\n"))
                var idle = 0
                while !Task.isCancelled {
                    try await Task.sleep(for: .milliseconds(50))
                    let now = await feed.version
                    if now != sent {
                        sent = now
                        idle = 0
                        try await writer.write(ByteBuffer(string: "data: \(now)\n\n"))
                    } else {
                        idle += 1
                        // A comment now and then: a closed page is noticed, and proxies keep the stream.
                        if idle >= 200 { idle = 0; try await writer.write(ByteBuffer(string: ": alive\n\n")) }
                    }
                }
                try await writer.finish(nil)
            })
        }
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "pushliquid-studio"),
            onServerRunning: { channel in
                onRunning("http://127.0.0.1:\(channel.localAddress?.port ?? 0)/")
            }
        )
        try await app.runService()
    }

    static func response(_ text: String, type: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ value: LiquidValue, status: HTTPResponse.Status = .ok) -> Response {
        response(value.jsonString, type: "application/json; charset=utf-8", status: status)
    }
}

/// `pushliquid studio --export DIR`: the same pages as files, one per campaign, each with its
/// snapshot inside (no server, no live updates): for a review or a CI artifact.
public enum StudioExport {
    /// Writes `DIR/<campaign>.html` for every campaign and `DIR/index.html` (the default
    /// campaign's page); returns the files written.
    @discardableResult
    public static func write(_ workspace: StudioWorkspace, to directory: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let campaigns = workspace.campaigns()
        var written: [URL] = []
        for name in campaigns {
            let url = directory.appendingPathComponent(name + ".html")
            try StudioPage.html(snapshot: workspace.snapshot(campaign: name), exportLinks: campaigns).write(to: url, atomically: true, encoding: .utf8)
            written.append(url)
        }
        if let first = workspace.defaultCampaign() {
            let index = directory.appendingPathComponent("index.html")
            try StudioPage.html(snapshot: workspace.snapshot(campaign: first), exportLinks: campaigns).write(to: index, atomically: true, encoding: .utf8)
            written.append(index)
        }
        return written
    }
}
