import Foundation
import Liquid
import LibcurlHTTP

/// Builds Braze `/users/track` request bodies.
public enum TrackRequest {
    /// `{"attributes": [...], "events": [...]}` for `entries`: one attributes object per user
    /// (later updates win), events with ISO 8601 `time`; users identified by `external_id` or
    /// `braze_id` (anonymous entries take `appUser`'s, and are skipped without one).
    public static func body(_ entries: [AnalyticsEntry], appUser: UserIdentifier? = nil) -> LiquidValue {
        var attributes: [(UserIdentifier, LiquidObject)] = []
        var events: [LiquidValue] = []
        func identify(_ user: UserIdentifier, into o: inout LiquidObject) -> Bool {
            switch user {
            case .externalID(let id): o["external_id"] = .string(id)
            case .brazeID(let id): o["braze_id"] = .string(id)
            case .anonymous:
                guard let appUser, appUser != .anonymous else { return false }
                return identify(appUser, into: &o)
            }
            return true
        }
        for entry in entries.sorted(by: { ($0.time, $0.id) < ($1.time, $1.id) }) {
            switch entry.kind {
            case .event:
                var o = LiquidObject()
                guard identify(entry.user, into: &o) else { continue }
                o["name"] = .string(entry.name)
                o["time"] = .string(iso8601(entry.time))
                if case .object(let p) = entry.value, !p.isEmpty { o["properties"] = .object(p) }
                events.append(.object(o))
            case .customAttribute, .userAttribute:
                let user = entry.user == .anonymous ? (appUser ?? .anonymous) : entry.user
                if let i = attributes.firstIndex(where: { $0.0 == user }) {
                    attributes[i].1[entry.name] = entry.value
                } else {
                    var o = LiquidObject()
                    guard identify(user, into: &o) else { continue }
                    o[entry.name] = entry.value
                    attributes.append((user, o))
                }
            }
        }
        var body = LiquidObject()
        if !attributes.isEmpty { body["attributes"] = .array(attributes.map { .object($0.1) }) }
        if !events.isEmpty { body["events"] = .array(events) }
        return .object(body)
    }
}

/// Posts a request body; returns the HTTP status, or throws when there is no answer.
public protocol AnalyticsTransport: Sendable {
    func post(_ body: Data) throws -> (status: Int, body: String)
}

/// Posts JSON to a `/users/track` endpoint with a bearer API key (over libcurl, loaded on
/// the first post).
public struct HTTPAnalyticsTransport: AnalyticsTransport {
    /// The endpoint, `https://rest.iad-01.braze.com/users/track`.
    public let endpoint: URL
    let apiKey: String
    let timeout: TimeInterval

    /// A transport to `endpoint`.
    public init(endpoint: URL, apiKey: String, timeout: TimeInterval = 10) {
        self.endpoint = endpoint
        self.apiKey = apiKey
        self.timeout = timeout
    }

    public func post(_ body: Data) throws -> (status: Int, body: String) {
        let request = HTTPClient.Request(url: endpoint.absoluteString, method: "POST",
                                         headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(apiKey)")],
                                         body: body)
        do {
            let response = try HTTPClient.send(request, timeout: timeout)
            return (response.status, String(decoding: response.body, as: UTF8.self))
        } catch {
            throw AnalyticsError.transport(error.description)
        }
    }
}

/// Sends pending analytics on the app's launch: one `/users/track` request with everything
/// pending, and removes the entries only after the server confirms (2xx). A failure keeps
/// everything for the next launch.
public struct AnalyticsSender: Sendable {
    /// Where entries wait.
    public let store: AnalyticsStore
    /// How they are posted.
    public let transport: any AnalyticsTransport
    /// The app's signed-in user, for entries the extension could not identify.
    public var appUser: UserIdentifier?

    /// A sender for `store` over `transport`.
    public init(store: AnalyticsStore, transport: any AnalyticsTransport, appUser: UserIdentifier? = nil) {
        self.store = store
        self.transport = transport
        self.appUser = appUser
    }

    /// What a flush did.
    public enum Outcome: Sendable, Equatable {
        case nothingToSend
        /// Sent and removed this many entries.
        case sent(Int)
        /// Kept this many entries for the next launch, with why.
        case kept(Int, reason: String)
    }

    /// Sends everything pending (under the store's send lock).
    public func flush() throws -> Outcome {
        try store.withSendLock {
            try store.removeOrphans()
            let (entries, _) = try store.pending()
            if entries.isEmpty { return .nothingToSend }
            let body = Data(TrackRequest.body(entries, appUser: appUser).jsonString.utf8)
            do {
                let (status, text) = try transport.post(body)
                guard (200..<300).contains(status) else {
                    return .kept(entries.count, reason: AnalyticsError.server(status: status, body: text).description)
                }
            } catch {
                return .kept(entries.count, reason: "\(error)")
            }
            try store.remove(ids: entries.map(\.id))
            return .sent(entries.count)
        }
    }
}
