import Foundation
import Liquid

/// How a notification content extension is dismissed after an action
/// (`UNNotificationContentExtensionResponseOption`).
public enum DismissalOption: String, Sendable, Equatable {
    /// Close the notification.
    case dismiss
    /// Keep it open (to show a confirmation).
    case doNotDismiss
    /// Close it and open the app with the action.
    case dismissAndForward
}

/// The information-capture push: a state machine for entering an e-mail address or phone
/// number in the notification, validated with PCRE2.
public struct CaptureModel: Sendable {
    /// Where the capture is.
    public enum State: Sendable, Equatable {
        /// Showing the prompt, nothing typed yet.
        case prompting
        /// Typing; `valid` says whether the text passes the pattern.
        case editing(text: String, valid: Bool)
        /// Submitted, waiting to be confirmed.
        case submitted(String)
        /// Saved; the confirmation shows.
        case confirmed(String)
        /// Closed, with how.
        case dismissed(DismissalOption)
    }

    /// The notification actions, by identifier (the category's actions).
    public enum Action: String, Sendable, CaseIterable {
        /// Save the value (shown only when it is valid); keeps the notification open.
        case register = "REGISTER_ACTION"
        /// Close the notification.
        case close = "CLOSE_ACTION"
        /// Close and continue in the app.
        case openApp = "OPEN_APP_ACTION"

        /// The dismissal option each action maps to.
        public var dismissal: DismissalOption {
            switch self {
            case .register: return .doNotDismiss
            case .close: return .dismiss
            case .openApp: return .dismissAndForward
            }
        }
    }

    /// What is asked for.
    public let kind: CaptureKind
    /// The certificate or offer's title.
    public let title: String
    /// Its description.
    public let detail: String?
    /// The user's Braze id (the analytics identify the user with it).
    public let brazeID: String
    /// Text to start with (a known address).
    public let prefill: String?
    /// The validating pattern (built in, or from the payload's `capture_pattern`).
    public let pattern: RegexPattern
    /// The current state.
    public private(set) var state: State = .prompting

    /// Reads `braze_id`, `cert_title`, `cert_description`, `capture_kind` (email|phone,
    /// default email), `capture_pattern` (optional PCRE2) and `prefill`.
    public init(userInfo: LiquidValue) throws {
        var r = PayloadReader(userInfo: userInfo)
        let brazeID = r.string("braze_id")
        let title = r.string("cert_title")
        let detail = r.optionalString("cert_description")
        let kindText = r.optionalString("capture_kind") ?? "email"
        let kind = CaptureKind(rawValue: kindText)
        if kind == nil { r.problems.append(KeyProblem(key: "capture_kind", expected: "email or phone", found: "\"\(kindText)\"")) }
        var pattern: RegexPattern?
        let patternText = r.optionalString("capture_pattern")
        do {
            pattern = try RegexPattern(patternText ?? (kind ?? .email).builtInPattern)
        } catch let e as RegexPattern.Failure {
            r.problems.append(KeyProblem(key: "capture_pattern", expected: "a valid PCRE2 pattern", found: "\(e)"))
        }
        let prefill = r.optionalString("prefill")
        try r.finish("capture")
        self.kind = kind!
        self.title = title!
        self.detail = detail
        self.brazeID = brazeID!
        self.prefill = prefill
        self.pattern = pattern!
        if let prefill { edit(prefill) }
    }

    /// Whether `text` passes the pattern (a pattern that hits its limits does not pass).
    public func isValid(_ text: String) -> Bool {
        (try? pattern.matchesWhole(text.trimmingCharacters(in: .whitespaces))) ?? false
    }

    /// The user typed: the state becomes `editing` with the validity.
    public mutating func edit(_ text: String) {
        switch state {
        case .prompting, .editing: state = text.isEmpty ? .prompting : .editing(text: text, valid: isValid(text))
        default: break
        }
    }

    /// The actions to show now: `register` only while the input is valid.
    public var availableActions: [Action] {
        switch state {
        case .editing(_, true): return [.register, .close, .openApp]
        case .prompting, .editing: return [.close, .openApp]
        case .submitted, .confirmed: return [.close, .openApp]
        case .dismissed: return []
        }
    }

    /// Handles an action by identifier; returns how to dismiss. `register` submits the value
    /// and records it with `analytics` (the user attribute and a `captured_<kind>` event).
    public mutating func perform(_ identifier: String, analytics: AnalyticsStore? = nil, now: Date = Date()) throws -> DismissalOption {
        guard let action = Action(rawValue: identifier), availableActions.contains(action) else {
            throw ContentViewError(view: "capture", problems: [KeyProblem(key: "action", expected: availableActions.map(\.rawValue).joined(separator: " or "), found: identifier)])
        }
        switch action {
        case .register:
            guard case .editing(let text, true) = state else { return .doNotDismiss }
            let value = text.trimmingCharacters(in: .whitespaces)
            state = .submitted(value)
            if let analytics {
                try analytics.append(.userAttribute(kind.attributeName, .string(value), user: .brazeID(brazeID), time: now))
                try analytics.append(.event("captured_\(kind.rawValue)", properties: ["title": .string(title)], user: .brazeID(brazeID), time: now))
            }
            state = .confirmed(value)
            return action.dismissal
        case .close, .openApp:
            state = .dismissed(action.dismissal)
            return action.dismissal
        }
    }
}
