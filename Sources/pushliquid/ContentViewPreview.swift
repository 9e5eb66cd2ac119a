import ContentViews
import Foundation
import Liquid
import PushPayload

/// The content extension's view of a rendered payload, as text.
enum ContentViewPreview {
    static func render(_ kind: ContentViewKind, payload: PushPayload, profile: LiquidValue) -> [String] {
        // The extension reads the key-value pairs: top level on iOS, `extra` on Android.
        var info = LiquidObject()
        for f in payload.fields where f.name.hasPrefix("key_value_pairs.") { info[f.key] = .string(f.text) }
        let userInfo = LiquidValue.object(info)
        do {
            switch kind {
            case .progress:
                let m = try ProgressModel(userInfo: userInfo)
                let language = profile.property("language").stringValue ?? "en"
                let country = profile.property("country").stringValue.map { "_" + $0 } ?? ""
                let zone = profile.property("time_zone").stringValue.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
                return ["Content view (progress):", "  " + m.bar(), "  " + m.summary(locale: Locale(identifier: language + country), timeZone: zone)]
            case .capture:
                let m = try CaptureModel(userInfo: userInfo)
                var lines = ["Content view (capture): \(m.title)"]
                if let d = m.detail { lines.append("  \(d)") }
                let field: String
                switch m.state {
                case .editing(let text, let valid): field = "[\(text)]" + (valid ? " ✓" : " ✗")
                default: field = "[\(m.kind == .email ? "you@example.com" : "+1 555 0100")]"
                }
                lines.append("  \(m.kind == .email ? "E-mail" : "Phone"): \(field)")
                lines.append("  Actions: " + m.availableActions.map { "\($0.rawValue) → \($0.dismissal.rawValue)" }.joined(separator: ", "))
                return lines
            case .matchGame:
                let m = try MatchGameModel(userInfo: userInfo, seed: 1)
                return ["Content view (match game): \(m.cards.count / 2) pairs, \(m.maxTurns) turns, reward \(m.reward)"]
                    + m.board().split(separator: "\n").map { "  " + $0 }
            }
        } catch {
            return ["Content view (\(kind.rawValue)): \(error)"]
        }
    }
}
