import Foundation
import Liquid
import Personalization
import Yams

extension Campaign {
    /// Reads a campaign file (YAML; JSON is YAML too). Unknown keys, missing required keys
    /// and wrong types are ``CampaignError``s with line and column.
    public init(contentsOf url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CampaignError(file: url.path, location: nil, message: "cannot read the campaign file")
        }
        try self.init(yaml: try CampaignError.text(data, file: url.path), file: url.path)
    }

    /// Reads a campaign from YAML text; `file` names it in errors.
    public init(yaml: String, file: String) throws {
        let reader = CampaignReader(file: file)
        let root: Node
        do {
            guard let node = try Self.compose(yaml) else {
                throw CampaignError(file: file, location: nil, message: "the campaign file is empty")
            }
            root = node
        } catch let error as YamlError {
            throw reader.yamlError(error, yaml: yaml)
        }
        self = try reader.campaign(root)
    }
}

extension Campaign {
    /// The stack of the thread that composes YAML: Yams recurses once per level a document
    /// nests, as deep as libyaml allows (1,000 levels), which needs megabytes in a debug build.
    static let composeStackBytes = 64 << 20

    /// `Yams.compose`, on a thread of its own with a stack large enough for any document
    /// libyaml accepts, so that a deeply nested file cannot overflow the stack of whatever
    /// thread loads the campaign (a 512 KB secondary thread, say).
    static func compose(_ yaml: String) throws -> Node? {
        final class Outcome: @unchecked Sendable {
            var result: Result<Node?, any Error> = .success(nil)
            let done = DispatchSemaphore(value: 0)
        }
        let outcome = Outcome()
        let thread = Thread {
            outcome.result = Result { try Yams.compose(yaml: yaml) }
            outcome.done.signal()
        }
        thread.stackSize = composeStackBytes
        thread.start()
        outcome.done.wait()
        return try outcome.result.get()
    }
}

struct CampaignReader {
    let file: String

    func error(_ node: Node?, _ message: String) -> CampaignError {
        CampaignError(file: file, location: node?.mark.map { SourceLocation(line: $0.line, column: $0.column) }, message: message)
    }

    func yamlError(_ error: YamlError, yaml: String) -> CampaignError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _), .composer(let context, let problem, let mark, _):
            // Where the construct that failed began (an unclosed quote's opening, say) is where
            // to look, not the end of the file where libyaml noticed.
            if let context, context.mark.line < mark.line || (context.mark.line == mark.line && context.mark.column < mark.column) {
                return CampaignError(file: file, location: SourceLocation(line: context.mark.line, column: context.mark.column),
                                     message: "invalid YAML: \(problem) \(context.text) that starts here (noticed at \(mark.line):\(mark.column))")
            }
            return CampaignError(file: file, location: SourceLocation(line: mark.line, column: mark.column), message: "invalid YAML: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let key = duplicates.first ?? ""
            let first = SourceLocation(line: context.mark.line, column: context.mark.column)
            let at = Self.secondOccurrence(of: key, inMappingAt: first, in: yaml) ?? first
            return CampaignError(file: file, location: at, message: "duplicate key '\(key)'")
        default:
            return CampaignError(file: file, location: nil, message: "invalid YAML: \(error)")
        }
    }

    /// The line and column of the second `key:` among the keys of the block mapping that
    /// starts at `start` (same indentation), if it can be found.
    static func secondOccurrence(of key: String, inMappingAt start: SourceLocation, in yaml: String) -> SourceLocation? {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
        guard start.line >= 1, start.line <= lines.count, start.column >= 1 else { return nil }
        let indent = start.column - 1
        var seen = 0
        for number in start.line...max(start.line, lines.count) where number <= lines.count {
            let line = lines[number - 1]
            let leading = line.prefix(while: { $0 == " " }).count
            if number > start.line, leading < indent, !line.trimmingCharacters(in: .whitespaces).isEmpty,
               !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") { break }
            guard leading == indent else { continue }
            let rest = line.dropFirst(indent)
            for candidate in [key, "\"\(key)\"", "'\(key)'"] where rest.hasPrefix(candidate) {
                if rest.dropFirst(candidate.count).drop(while: { $0 == " " }).hasPrefix(":") {
                    seen += 1
                    if seen == 2 { return SourceLocation(line: number, column: indent + 1) }
                }
            }
        }
        return nil
    }

    /// The pairs of a mapping, with keys checked against `allowed` (nil: any) and duplicates refused.
    func mapping(_ node: Node, _ what: String, allowed: [String]?) throws -> [(key: String, keyNode: Node, value: Node)] {
        guard case .mapping(let m) = node else { throw error(node, "\(what) must be a mapping") }
        var out: [(String, Node, Node)] = []
        var seen = Set<String>()
        for (k, v) in m {
            guard case .scalar(let ks) = k else { throw error(k, "\(what) keys must be strings") }
            let key = ks.string
            if let allowed, !allowed.contains(key) {
                throw error(k, "unknown key '\(key)' in \(what); expected one of: \(allowed.joined(separator: ", "))")
            }
            if !seen.insert(key).inserted { throw error(k, "duplicate key '\(key)' in \(what)") }
            out.append((key, k, v))
        }
        return out
    }

    func scalar(_ node: Node, _ what: String) throws -> Node.Scalar {
        guard case .scalar(let s) = node else { throw error(node, "\(what) must be a single value, not a list or mapping") }
        return s
    }

    func string(_ node: Node, _ what: String) throws -> String {
        let s = try scalar(node, what)
        if s.tag.description.contains("null") || (s.style == .plain && ["~", "null", "Null", "NULL", ""].contains(s.string)) {
            throw error(node, "\(what) must be a string, got null")
        }
        return s.string
    }

    func bool(_ node: Node, _ what: String) throws -> Bool {
        let s = try scalar(node, what)
        guard s.style == .plain, let b = Bool.construct(from: s) else { throw error(node, "\(what) must be true or false, got '\(s.string)'") }
        return b
    }

    func int(_ node: Node, _ what: String) throws -> Int {
        let s = try scalar(node, what)
        guard s.style == .plain, let i = Int.construct(from: s) else { throw error(node, "\(what) must be an integer, got '\(s.string)'") }
        return i
    }

    func field(_ node: Node, name: String, key: String) throws -> CampaignField {
        let s = try scalar(node, name)
        let style: CampaignField.ScalarStyle
        switch s.style {
        case .singleQuoted: style = .singleQuoted
        case .doubleQuoted: style = .doubleQuoted
        case .literal: style = .literal
        case .folded: style = .folded
        default: style = .plain
        }
        if s.style == .plain && ["~", "null", "Null", "NULL"].contains(s.string) {
            throw error(node, "\(name) must be a Liquid string, got null")
        }
        return CampaignField(name: name, key: key, source: s.string, line: s.mark?.line ?? 1, column: s.mark?.column ?? 1, style: style)
    }

    /// The most YAML nodes one preview value may expand to. A YAML alias refers to a node
    /// written elsewhere, so that a short file could otherwise stand for billions of them.
    static let maxValueNodes = 100_000
    /// The deepest a preview value may nest.
    static let maxValueDepth = 100

    /// A YAML value as a Liquid value (mappings keep their order), at most ``maxValueNodes``
    /// nodes (aliases expanded) and ``maxValueDepth`` levels.
    func value(_ node: Node) throws -> LiquidValue {
        var budget = Self.maxValueNodes
        return try value(node, depth: 0, budget: &budget)
    }

    private func value(_ node: Node, depth: Int, budget: inout Int) throws -> LiquidValue {
        budget -= 1
        if budget < 0 {
            throw error(node, "this value expands to more than \(Self.maxValueNodes) YAML nodes (through aliases?); the limit keeps a small file from taking the machine's memory")
        }
        if depth > Self.maxValueDepth { throw error(node, "values nested more than \(Self.maxValueDepth) deep") }
        switch node {
        case .scalar(let s):
            if s.style != .plain { return .string(s.string) }
            if ["~", "null", "Null", "NULL", ""].contains(s.string) { return .nil }
            if let b = Bool.construct(from: s) { return .bool(b) }
            if let i = Int.construct(from: s) { return .int(i) }
            if let d = Double.construct(from: s), s.string.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return .double(d) }
            return .string(s.string)
        case .sequence(let seq): return .array(try seq.map { try value($0, depth: depth + 1, budget: &budget) })
        case .mapping:
            var o = LiquidObject()
            for (k, _, v) in try mapping(node, "a mapping", allowed: nil) { o[k] = try value(v, depth: depth + 1, budget: &budget) }
            return .object(o)
        case .alias: throw error(node, "YAML aliases are not supported in campaign files")
        }
    }

    static let topKeys = ["name", "title", "subtitle", "body", "key_value_pairs", "campaign", "canvas", "ios", "android", "content_view", "preview"]
    static let iosKeys = ["category", "sound", "badge", "thread_id", "interruption_level", "mutable_content", "content_available", "image_url", "deep_link"]
    static let androidKeys = ["channel_id", "priority", "image_url", "deep_link", "summary_text"]
    static let previewKeys = ["api_trigger_properties", "canvas_entry_properties", "event_properties", "context", "now"]
    static let reservedKeys = ["aps", "ab", "ab_uri"]

    func campaign(_ root: Node) throws -> Campaign {
        var name: String?, title: CampaignField?, subtitle: CampaignField?, body: CampaignField?
        var kvs: [CampaignField] = []
        var info = LiquidObject(), canvas = LiquidObject()
        var ios = IOSOptions(), android = AndroidOptions()
        var contentView: ContentViewKind?
        var preview = PreviewData()
        for (key, _, v) in try mapping(root, "the campaign", allowed: Self.topKeys) {
            switch key {
            case "name": name = try string(v, "name")
            case "title": title = try field(v, name: "title", key: "title")
            case "subtitle": subtitle = try field(v, name: "subtitle", key: "subtitle")
            case "body": body = try field(v, name: "body", key: "body")
            case "key_value_pairs":
                for (k, kNode, kv) in try mapping(v, "key_value_pairs", allowed: nil) {
                    if Self.reservedKeys.contains(k) { throw error(kNode, "key-value pair '\(k)' is reserved by the payload format (aps, ab, ab_uri)") }
                    kvs.append(try field(kv, name: "key_value_pairs.\(k)", key: k))
                }
            case "campaign", "canvas":
                for (k, _, cv) in try mapping(v, key, allowed: nil) {
                    let s = try scalar(cv, "\(key).\(k)")
                    if key == "campaign" { info[k] = .string(s.string) } else { canvas[k] = .string(s.string) }
                }
            case "ios":
                for (k, _, o) in try mapping(v, "ios", allowed: Self.iosKeys) {
                    switch k {
                    case "category": ios.category = try string(o, "ios.category")
                    case "sound": ios.sound = try string(o, "ios.sound")
                    case "badge": ios.badge = try field(o, name: "ios.badge", key: "badge")
                    case "thread_id": ios.threadID = try string(o, "ios.thread_id")
                    case "interruption_level":
                        let s = try string(o, "ios.interruption_level")
                        guard let level = InterruptionLevel(rawValue: s) else {
                            throw error(o, "ios.interruption_level must be one of passive, active, time-sensitive, critical; got '\(s)'")
                        }
                        ios.interruptionLevel = level
                    case "mutable_content": ios.mutableContent = try bool(o, "ios.mutable_content")
                    case "content_available": ios.contentAvailable = try bool(o, "ios.content_available")
                    case "image_url": ios.imageURL = try field(o, name: "ios.image_url", key: "image_url")
                    default: ios.deepLink = try field(o, name: "ios.deep_link", key: "deep_link")
                    }
                }
            case "android":
                for (k, _, o) in try mapping(v, "android", allowed: Self.androidKeys) {
                    switch k {
                    case "channel_id": android.channelID = try string(o, "android.channel_id")
                    case "priority":
                        let p = try int(o, "android.priority")
                        guard (-2...2).contains(p) else { throw error(o, "android.priority must be between -2 and 2, got \(p)") }
                        android.priority = p
                    case "image_url": android.imageURL = try field(o, name: "android.image_url", key: "image_url")
                    case "deep_link": android.deepLink = try field(o, name: "android.deep_link", key: "deep_link")
                    default: android.summaryText = try field(o, name: "android.summary_text", key: "summary_text")
                    }
                }
            case "content_view":
                let s = try string(v, "content_view")
                guard let kind = ContentViewKind(rawValue: s) else {
                    throw error(v, "content_view must be one of progress, capture, match_game; got '\(s)'")
                }
                contentView = kind
            default:  // preview
                for (k, _, pv) in try mapping(v, "preview", allowed: Self.previewKeys) {
                    if k == "now" {
                        let s = try string(pv, "preview.now")
                        guard let d = parseISO8601(s) else { throw error(pv, "preview.now must be an ISO 8601 time, got '\(s)'") }
                        preview.now = d
                    } else {
                        let val = try value(pv)
                        guard case .object = val else { throw error(pv, "preview.\(k) must be a mapping") }
                        preview.properties[k] = val
                    }
                }
            }
        }
        guard let name else { throw error(root, "the campaign needs a 'name'") }
        guard let title else { throw error(root, "the campaign needs a 'title'") }
        guard let body else { throw error(root, "the campaign needs a 'body'") }
        return Campaign(name: name, file: file, title: title, subtitle: subtitle, body: body, keyValuePairs: kvs,
                        campaignInfo: info, canvasInfo: canvas, ios: ios, android: android, contentView: contentView, preview: preview)
    }
}

