import Foundation
import Liquid

/// A push campaign as written in `Templates/<name>.yml`: the Liquid fields of the message and
/// the platform options.
public struct Campaign: Sendable {
    /// `name:` (required).
    public var name: String
    /// The file it was read from, for error messages.
    public var file: String
    /// `title:` (required, Liquid).
    public var title: CampaignField
    /// `subtitle:` (iOS only, Liquid).
    public var subtitle: CampaignField?
    /// `body:` (required, Liquid).
    public var body: CampaignField
    /// `key_value_pairs:` in order, each value Liquid.
    public var keyValuePairs: [CampaignField]
    /// `campaign:` (`api_id`, `name`, `message_name`, `message_api_id`...), the
    /// `campaign.${...}` namespace; a render context document's own `campaign` keys (a send's
    /// `dispatch_id`) are added over it.
    public var campaignInfo: LiquidObject
    /// `canvas:` (`name`, `api_id`, `variant_name`, `variant_api_id`), the `canvas.${...}`
    /// namespace, under the document's own `canvas` keys likewise.
    public var canvasInfo: LiquidObject = LiquidObject()
    /// `ios:` options.
    public var ios: IOSOptions
    /// `android:` options.
    public var android: AndroidOptions
    /// `content_view:` the notification content extension that shows it.
    public var contentView: ContentViewKind?
    /// `preview:` send-time data for previews and golden files.
    public var preview: PreviewData

    /// The campaign's `api_id`, when set.
    public var apiID: String? { campaignInfo["api_id"]?.stringValue }
}

/// One Liquid field of a campaign and where its text is in the campaign file.
public struct CampaignField: Sendable {
    /// `title`, `body`, `key_value_pairs.next_session_name`, `ios.badge`...
    public var name: String
    /// The key for key-value pairs (`next_session_name`); the name otherwise.
    public var key: String
    /// The Liquid source.
    public var source: String
    /// Where the value starts in the file (1-based; columns in Unicode scalars).
    public var line: Int
    /// Column of the value (1-based, Unicode scalars).
    public var column: Int
    /// How the YAML scalar was written, to map positions inside it to the file.
    public var style: ScalarStyle

    /// YAML scalar styles.
    public enum ScalarStyle: Sendable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// Maps a position inside the field's Liquid source to the campaign file. Exact for
    /// plain and quoted scalars on one line (escapes such as `\"` and `''` counted, when the
    /// file's text is given) and for block scalars; approximate for folded multi-line scalars.
    public func fileLocation(of inner: SourceLocation, fileText: String?) -> SourceLocation {
        switch style {
        case .plain, .singleQuoted, .doubleQuoted:
            let quote = style == .plain ? 0 : 1
            if inner.line == 1, style != .plain, let fileText, let escaped = escapedColumn(inner.column, in: fileText) {
                return SourceLocation(line: line, column: escaped)
            }
            if inner.line == 1 { return SourceLocation(line: line, column: column + quote + inner.column - 1) }
            return SourceLocation(line: line + inner.line - 1, column: inner.column)
        case .literal, .folded:
            // Content starts on the next line, indented.
            let contentLine = line + inner.line
            var indent = 0
            if let fileText {
                let lines = fileText.split(separator: "\n", omittingEmptySubsequences: false)
                if contentLine - 1 < lines.count {
                    indent = lines[contentLine - 1].prefix(while: { $0 == " " }).count
                }
            }
            return SourceLocation(line: contentLine, column: indent + inner.column)
        }
    }

    /// The file column of the value's character `valueColumn` (1-based) in a quoted scalar's
    /// first line, reading its escapes (`\"`, `\n`, `\xXX`, `\uXXXX`, `\UXXXXXXXX`; `''`).
    private func escapedColumn(_ valueColumn: Int, in fileText: String) -> Int? {
        let lines = fileText.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return nil }
        let scalars = Array(lines[line - 1].unicodeScalars)
        var i = column  // 0-based index of the first character after the opening quote
        var remaining = valueColumn - 1
        while remaining > 0, i < scalars.count {
            if style == .doubleQuoted, scalars[i] == "\\", i + 1 < scalars.count {
                switch scalars[i + 1] {
                case "x": i += 4
                case "u": i += 6
                case "U": i += 10
                default: i += 2
                }
            } else if style == .singleQuoted, scalars[i] == "'", i + 1 < scalars.count, scalars[i + 1] == "'" {
                i += 2
            } else {
                i += 1
            }
            remaining -= 1
        }
        return i + 1
    }
}

/// The content extensions of the seed guide.
public enum ContentViewKind: String, Sendable, CaseIterable {
    case progress, capture
    case matchGame = "match_game"
}

/// `interruption_level:` values.
public enum InterruptionLevel: String, Sendable, CaseIterable {
    case passive, active
    case timeSensitive = "time-sensitive"
    case critical
}

/// `ios:` options.
public struct IOSOptions: Sendable {
    /// `aps.category`: selects the notification content extension.
    public var category: String?
    /// `aps.sound`.
    public var sound: String?
    /// Liquid; must render to an integer.
    public var badge: CampaignField?
    /// `aps.thread-id`: groups notifications.
    public var threadID: String?
    /// `aps.interruption-level`.
    public var interruptionLevel: InterruptionLevel?
    /// `aps.mutable-content: 1` (also set by an image).
    public var mutableContent = false
    /// `aps.content-available: 1`.
    public var contentAvailable = false
    /// Liquid.
    public var imageURL: CampaignField?
    /// Liquid.
    public var deepLink: CampaignField?
}

/// `android:` options.
public struct AndroidOptions: Sendable {
    /// The notification channel (`ab_nc`).
    public var channelID: String?
    /// -2 to 2.
    public var priority: Int?
    /// Liquid.
    public var imageURL: CampaignField?
    /// Liquid.
    public var deepLink: CampaignField?
    /// Liquid.
    public var summaryText: CampaignField?
}

/// `preview:` example send-time data, used by `preview`, `render` and golden files when no
/// context is given: `api_trigger_properties`, `canvas_entry_properties`, `event_properties`,
/// `context`, and `now`.
public struct PreviewData: Sendable {
    /// Namespaces of the render context document (`api_trigger_properties`...).
    public var properties: [String: LiquidValue] = [:]
    /// The send time for previews.
    public var now: Date?
}

/// A problem in a campaign, at its place in the file: an error (what `check` knows will fail)
/// or a warning (what renders, but probably not as its author meant: a filter the dialect does
/// not have, a Connected Content call that got no answer).
public struct CampaignDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// How bad it is.
    public enum Severity: String, Sendable {
        /// The campaign fails, or cannot be what its author meant.
        case error
        /// It renders, but probably not as meant.
        case warning
    }

    /// How bad it is.
    public var severity: Severity
    /// The campaign file.
    public var file: String
    /// 1-based line and column in the file, when known.
    public var location: SourceLocation?
    /// The field (`title`, `key_value_pairs.x`...).
    public var field: String
    /// What is wrong.
    public var message: String

    /// A diagnostic about `field` in `file` at `location`.
    public init(_ severity: Severity = .warning, file: String, location: SourceLocation?, field: String, message: String) {
        self.severity = severity
        self.file = file
        self.location = location
        self.field = field
        self.message = message
    }

    /// `file:line:column: warning: in field: message` (or `error:`).
    public var description: String {
        "\(file)\(location.map { ":\($0.line):\($0.column)" } ?? ""): \(severity.rawValue): \(field.isEmpty ? "" : "in \(field): ")\(message)"
    }
}

/// A campaign file problem, with its position.
public struct CampaignError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// 1-based line and column, when known.
    public var location: SourceLocation?
    /// What is wrong.
    public var message: String

    /// Reads `bytes` as the text of `file` (see `SourceText`): invalid UTF-8 is an error at
    /// its line and column.
    public static func text<Bytes: Collection<UInt8>>(_ bytes: Bytes, file: String) throws -> String {
        do { return try SourceText.decode(bytes, name: file) } catch let error as LiquidError {
            throw CampaignError(file: file, location: error.location, message: error.message)
        }
    }

    /// An error in `file` at `location`.
    public init(file: String, location: SourceLocation?, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        "\(file)\(location.map { ":\($0.line):\($0.column)" } ?? ""): error: \(message)"
    }
}
