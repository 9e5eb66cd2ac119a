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

    @Option(name: .long, parsing: .singleValue, help: "A campaign attribute of this send, KEY=VALUE: campaign.${KEY} (dispatch_id, message_api_id...), over the campaign file's. Repeatable.")
    var campaignInfo: [String] = []

    @Option(name: .long, parsing: .singleValue, help: "A Canvas attribute of this send, KEY=VALUE: canvas.${KEY} (name, api_id, variant_name, variant_api_id). Repeatable.")
    var canvasInfo: [String] = []

    @Option(name: .long, help: "The send time that 'now' means, ISO 8601 (default: the campaign's preview time, else the current time).")
    var now: String?

    @Option(name: .long, help: "ios or android.")
    var platform: PlatformArgument = .ios

    @Flag(name: .long, help: "Make real Connected Content requests (default: answers from Templates/connected_content.json).")
    var online = false

    @Option(name: .long, help: "Connected Content credentials for :basic_auth and :auth_credentials, a JSON file (default: the file $PUSHLIQUID_CREDENTIALS names, else the JSON in $PUSHLIQUID_CREDENTIALS_JSON).")
    var credentials: String?

    @Option(name: .long, help: "The campaigns folder (default: the folder the campaign file is in; for a name, the nearest Templates/ here or above).")
    var templates: String?

    @Option(name: .long, help: "The profiles folder (default: the nearest Profiles/ beside the campaigns folder or above it).")
    var profiles: String?

    @Option(name: .long, help: "The catalogs folder, NAME.csv or NAME.json each (default: the nearest Catalogs/ beside the campaigns folder or above it).")
    var catalogs: String?

    /// The campaigns folder that names are looked up in: --templates, else the nearest
    /// `Templates/` in the current folder or above it.
    func namesFolder() -> URL {
        if let templates { return URL(fileURLWithPath: templates) }
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return Workspace.folders(around: here)?.templates ?? here.appendingPathComponent("Templates")
    }

    func campaignURL() throws -> URL {
        let folder = namesFolder()
        guard let campaign else {
            let example = folder.appendingPathComponent("learning-progress.yml")
            guard FileManager.default.fileExists(atPath: example.path) else {
                throw ToolError.usage("no campaign given, and no Templates/learning-progress.yml here or above (name a campaign file)")
            }
            return example
        }
        if campaign == "-" { return URL(fileURLWithPath: "-") }
        if FileManager.default.fileExists(atPath: campaign) {
            guard !Workspace.isDirectory(URL(fileURLWithPath: campaign)) else { throw ToolError.usage("'\(campaign)' is a folder, not a campaign file") }
            return URL(fileURLWithPath: campaign)
        }
        if let url = try? CampaignWorkspace(folders: Workspace.Folders(templates: folder, profiles: nil)).campaignFile(named: campaign) {
            return url
        }
        throw ToolError.usage("no campaign '\(campaign)' (not a file, and not in \(displayPath(folder))/)")
    }

    /// The campaign's workspace folders: given ones first, the rest found from the campaign
    /// file's location (standard input: from the current folder). A folder given that does not
    /// exist is a usage error.
    func folders() throws -> Workspace.Folders {
        let url = try campaignURL()
        var found: Workspace.Folders
        if url.path.hasSuffix("/-") || url.lastPathComponent == "-" {
            let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            found = Workspace.folders(around: here) ?? Workspace.Folders(templates: namesFolder(), profiles: nil)
        } else {
            found = Workspace.folders(forCampaign: url)
        }
        if let templates {
            let given = URL(fileURLWithPath: templates)
            guard Workspace.isDirectory(given) else { throw ToolError.usage("--templates '\(templates)' is not a folder") }
            found.templates = given
        }
        if let profiles {
            let given = URL(fileURLWithPath: profiles)
            guard Workspace.isDirectory(given) else { throw ToolError.usage("--profiles '\(profiles)' is not a folder") }
            found.profiles = given
        }
        if let catalogs {
            let given = URL(fileURLWithPath: catalogs)
            guard Workspace.isDirectory(given) else { throw ToolError.usage("--catalogs '\(catalogs)' is not a folder") }
            found.catalogs = given
        }
        return found
    }

    /// The Braze dialect of the campaign's workspace; promotion codes used as `promotionCodes` says.
    func dialect(promotionCodes: PromotionCodeUse) throws -> BrazeDialect {
        let workspace = CampaignWorkspace(folders: try folders())
        let secrets: ConnectedContentCredentials
        do { secrets = try ConnectedContentCredentials.load(file: credentials) } catch {
            throw ToolError(message: "error: \(error)")
        }
        do {
            return try workspace.dialect(connectedContent: online ? ConnectedContentConfiguration(client: HTTPConnectedContentClient()) : nil,
                                         credentials: secrets, promotionCodes: promotionCodes)
        } catch let error as CampaignError {
            throw ToolError(message: error.description)
        } catch {
            throw ToolError(message: "\(displayPath(workspace.folders.templates))/connected_content.json: error: \(error)")
        }
    }

    /// Loads and compiles the campaign; file errors exit 1 with file, line and column.
    func compiledCampaign(promotionCodes: PromotionCodeUse = .dryRun) throws -> CompiledCampaign {
        let url = try campaignURL()
        let text = try readText(url.lastPathComponent == "-" ? "-" : url.path)
        do {
            let campaign = try Campaign(yaml: text, file: url.lastPathComponent == "-" ? "<stdin>" : displayPath(url))
            return try CompiledCampaign(campaign, dialect: try dialect(promotionCodes: promotionCodes), fileText: text)
                .with(campaignInfo: try keyValues(campaignInfo, option: "--campaign-info"), canvasInfo: try keyValues(canvasInfo, option: "--canvas-info"))
        } catch let error as CampaignError {
            throw ToolError(message: error.description)
        }
    }

    /// The recipient's profile: --profile, else `ana.json` in the profiles folder, else its
    /// first profile. Without either, an empty profile, with a warning on standard error.
    func profileValue() throws -> (name: String, value: LiquidValue) {
        if let profile {
            do {
                return (profileName(profile), try Workspace.profile(json: try readText(profile), file: profile == "-" ? "<stdin>" : profile))
            } catch let error as CampaignError {
                throw ToolError(message: error.description)
            }
        }
        guard let folder = try folders().profiles else {
            printError("warning: no Profiles/ folder beside \(displayPath(try campaignURL())) or above it: rendering with an empty profile (give --profile or --profiles)")
            return ("(none)", [:])
        }
        let ana = folder.appendingPathComponent("ana.json")
        if FileManager.default.fileExists(atPath: ana.path) {
            do { return ("ana", try Workspace.profile(json: try readText(ana.path), file: displayPath(ana))) } catch let error as CampaignError {
                throw ToolError(message: error.description)
            }
        }
        let all: [(String, LiquidValue)]
        do { all = try Workspace.profiles(in: folder) } catch let error as CampaignError {
            throw ToolError(message: error.description)
        }
        guard let first = all.first else {
            printError("warning: \(displayPath(folder))/ has no profiles (*.json): rendering with an empty profile")
            return ("(none)", [:])
        }
        return first
    }

    func profileName(_ path: String) -> String {
        path == "-" ? "<stdin>" : (URL(fileURLWithPath: path).lastPathComponent as NSString).deletingPathExtension
    }

    /// The render context document: profile, campaign preview data, --context, --trigger, --now;
    /// and the profile's name.
    func document(for campaign: CompiledCampaign) throws -> (document: RenderContextDocument, profile: String) {
        var overrides: RenderContextDocument?
        if let context {
            do { overrides = try RenderContextDocument(json: try readText(context)) } catch let e as PersonalizationError {
                throw ToolError(message: "\(context): \(e)")
            }
        }
        // The profile: --profile, else the --context document's, else the default profile.
        var profileValue = overrides?.profile ?? [:]
        var profileName = "(--context)"
        if profile != nil || profileValue == [:] { (profileName, profileValue) = try self.profileValue() }
        var doc = try campaign.previewDocument(profile: profileValue, overrides: overrides)
        if !trigger.isEmpty {
            var props: LiquidObject
            if case .object(let o) = doc.value.property("api_trigger_properties") { props = o } else { props = LiquidObject() }
            for (key, value) in try keyValues(trigger, option: "--trigger") { props[key] = value }
            doc.set("api_trigger_properties", .object(props))
        }
        if let now {
            guard let date = parseISO8601(now) else { throw ToolError.usage("--now must be an ISO 8601 time such as 2026-11-22T10:00:00Z, got '\(now)'") }
            doc.now = date
        }
        return (doc, profileName)
    }
}

/// `KEY=VALUE` arguments of `option`, each value JSON when it parses as JSON, else text.
func keyValues(_ pairs: [String], option: String) throws -> [(String, LiquidValue)] {
    try pairs.map { pair in
        guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
            throw ToolError.usage("\(option) takes KEY=VALUE, got '\(pair)'")
        }
        let key = String(pair[..<eq]), raw = String(pair[pair.index(after: eq)...])
        return (key, (try? JSONValueParser.parse(raw)) ?? .string(raw))
    }
}

enum PlatformArgument: String, ExpressibleByArgument, CaseIterable {
    case ios, android
    var platform: Platform { self == .ios ? .ios : .android }
}

/// `url` as a user would type it from the current folder: relative when it is inside it.
func displayPath(_ url: URL) -> String {
    let path = url.standardizedFileURL.path
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
    if path == here { return "." }
    if path.hasPrefix(here + "/") { return String(path.dropFirst(here.count + 1)) }
    return path
}
