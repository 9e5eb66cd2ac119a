import ArgumentParser
import Foundation
import Liquid
import Personalization
import PushPayload

/// Options shared by the commands that render a campaign for one recipient.
struct RecipientOptions: ParsableArguments {
    @Argument(help: "A campaign file, or a campaign name in Templates/ (default: the bundled learning-progress example).")
    var campaign: String?

    @Option(name: .long, help: "A profile file (Braze user-export JSON; default: Profiles/ana.json, else the first profile).")
    var profile: String?

    @Option(name: .long, help: "A render context document (JSON) to render with; its keys override the campaign's preview data.")
    var context: String?

    @Option(name: .long, parsing: .singleValue, help: "An API-trigger property, KEY=VALUE (VALUE is JSON when it parses as JSON). Repeatable.")
    var trigger: [String] = []

    @Option(name: .long, help: "The send time that 'now' means, ISO 8601 (default: the campaign's preview time, else the current time).")
    var now: String?

    @Option(name: .long, help: "ios or android.")
    var platform: PlatformArgument = .ios

    @Flag(name: .long, help: "Make real Connected Content requests (default: answers from Templates/connected_content.json).")
    var online = false

    @Option(name: .long, help: "The campaigns folder.")
    var templates = "Templates"

    @Option(name: .long, help: "The profiles folder.")
    var profiles = "Profiles"

    func campaignURL() throws -> URL {
        guard let campaign else { return URL(fileURLWithPath: templates).appendingPathComponent("learning-progress.yml") }
        if FileManager.default.fileExists(atPath: campaign) { return URL(fileURLWithPath: campaign) }
        for ext in ["yml", "yaml", "json"] {
            let url = URL(fileURLWithPath: templates).appendingPathComponent("\(campaign).\(ext)")
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        throw ToolError.usage("no campaign '\(campaign)' (not a file, and not in \(templates)/)")
    }

    func dialect() throws -> BrazeDialect {
        let templatesURL = URL(fileURLWithPath: templates)
        let connected: ConnectedContentConfiguration?
        if online {
            connected = ConnectedContentConfiguration(client: HTTPConnectedContentClient())
        } else {
            do { connected = try Workspace.offlineConnectedContent(templates: templatesURL) } catch {
                throw ToolError(message: "\(templates)/connected_content.json: \(error)")
            }
        }
        return BrazeDialect(contentBlocks: DirectoryContentBlocks(directory: templatesURL.appendingPathComponent("content_blocks")),
                            connectedContent: connected)
    }

    /// Loads and compiles the campaign; file errors exit 1 with file, line and column.
    func compiledCampaign() throws -> CompiledCampaign {
        let url = try campaignURL()
        let text = try readText(url.path)
        do {
            let campaign = try Campaign(yaml: text, file: url.relativePath)
            return try CompiledCampaign(campaign, dialect: try dialect(), fileText: text)
        } catch let error as CampaignError {
            throw ToolError(message: error.description)
        }
    }

    func profileValue() throws -> (name: String, value: LiquidValue) {
        var path = profile
        if path == nil {
            let ana = URL(fileURLWithPath: profiles).appendingPathComponent("ana.json").path
            if FileManager.default.fileExists(atPath: ana) { path = ana } else if let first = try? Workspace.profiles(in: URL(fileURLWithPath: profiles)).first {
                return first
            }
        }
        guard let path else { return ("(none)", [:]) }
        do {
            return ((URL(fileURLWithPath: path).lastPathComponent as NSString).deletingPathExtension, try Workspace.profile(json: try readText(path), file: path))
        } catch let error as CampaignError {
            throw ToolError(message: error.description)
        }
    }

    /// The render context document: profile, campaign preview data, --context, --trigger, --now.
    func document(for campaign: CompiledCampaign) throws -> RenderContextDocument {
        var overrides: RenderContextDocument?
        if let context {
            do { overrides = try RenderContextDocument(json: try readText(context)) } catch let e as PersonalizationError {
                throw ToolError(message: "\(context): \(e)")
            }
        }
        // The profile: --profile, else the --context document's, else the default profile.
        var profileValue = overrides?.profile ?? [:]
        if profile != nil || profileValue == [:] { profileValue = try self.profileValue().value }
        var doc = try campaign.previewDocument(profile: profileValue, overrides: overrides)
        if !trigger.isEmpty {
            var props: LiquidObject
            if case .object(let o) = doc.value.property("api_trigger_properties") { props = o } else { props = LiquidObject() }
            for pair in trigger {
                guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                    throw ToolError.usage("--trigger takes KEY=VALUE, got '\(pair)'")
                }
                let key = String(pair[..<eq]), raw = String(pair[pair.index(after: eq)...])
                props[key] = (try? JSONValueParser.parse(raw)) ?? .string(raw)
            }
            doc.set("api_trigger_properties", .object(props))
        }
        if let now {
            guard let date = parseISO8601(now) else { throw ToolError.usage("--now must be an ISO 8601 time such as 2026-11-22T10:00:00Z, got '\(now)'") }
            doc.now = date
        }
        return doc
    }
}

enum PlatformArgument: String, ExpressibleByArgument, CaseIterable {
    case ios, android
    var platform: Platform { self == .ios ? .ios : .android }
}
