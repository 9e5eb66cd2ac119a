import Foundation
import Liquid
import Personalization

/// A campaign workspace on disk, as `pushliquid` reads it: `Templates/` (campaigns,
/// `content_blocks/`, offline Connected Content answers in `connected_content.json`) and
/// `Profiles/` (Braze user exports). The way for a program, a send pipeline say, to load a
/// workspace, compile a campaign once and render each recipient's payload:
///
/// ```swift
/// let workspace = try CampaignWorkspace(root: URL(fileURLWithPath: "/srv/campaigns"))
/// let campaign = try workspace.compile("learning-progress")
/// let document = try campaign.previewDocument(profile: try workspace.profile("ana"))
/// switch campaign.render(document, platform: .ios) {
/// case .rendered(let payload): send(payload.serialized)
/// case .aborted(let reason, _): skip(reason)
/// case .failed(let error): report(error)
/// }
/// ```
///
/// A ``CompiledCampaign`` renders from many threads at once; for many recipients,
/// ``BatchRenderer`` renders NDJSON render context documents on every core.
public struct CampaignWorkspace: Sendable {
    /// Where campaigns, blocks, answers and profiles are.
    public let folders: Workspace.Folders

    /// The workspace in `root`: `root/Templates` (required), and `root/Profiles`,
    /// `root/Catalogs` and `root/PromotionCodes` when present.
    /// - Throws: ``CampaignError`` when `root` has no `Templates/` folder.
    public init(root: URL) throws {
        let templates = root.appendingPathComponent("Templates")
        guard Workspace.isDirectory(templates) else {
            throw CampaignError(file: root.path, location: nil, message: "no Templates/ folder")
        }
        func folder(_ name: String) -> URL? {
            let url = root.appendingPathComponent(name)
            return Workspace.isDirectory(url) ? url : nil
        }
        self.init(folders: Workspace.Folders(templates: templates, profiles: folder("Profiles"), catalogs: folder("Catalogs"),
                                             promotionCodes: folder("PromotionCodes")))
    }

    /// The workspace of the given folders.
    public init(folders: Workspace.Folders) {
        self.folders = folders
    }

    /// The workspace that holds `campaignFile` (see ``Workspace/folders(forCampaign:)``).
    public init(campaignFile: URL) {
        self.init(folders: Workspace.folders(forCampaign: campaignFile))
    }

    /// The file of the campaign `name` (`Templates/NAME.yml`, `.yaml` or `.json`).
    /// - Throws: ``CampaignError`` when there is none.
    public func campaignFile(named name: String) throws -> URL {
        for ext in ["yml", "yaml", "json"] {
            let url = folders.templates.appendingPathComponent("\(name).\(ext)")
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        throw CampaignError(file: folders.templates.appendingPathComponent(name).path, location: nil, message: "no campaign '\(name)'")
    }

    /// The Braze dialect with this workspace's content blocks, and Connected Content answered by
    /// `connectedContent` (default: the offline answers in `connected_content.json`, if any)
    /// with `credentials` for `:basic_auth` and `:auth_credentials` (kept outside the
    /// workspace's campaign files: see `ConnectedContentCredentials.load(file:environment:)`).
    ///
    /// Promotion codes come from `PromotionCodes/` as `promotionCodes` says: handed out for
    /// real (the default, for sends), or in memory only (previews, dry runs, golden files).
    public func dialect(connectedContent: ConnectedContentConfiguration? = nil, credentials: ConnectedContentCredentials? = nil,
                        promotionCodes: PromotionCodeUse = .handOut(ledger: nil)) throws -> BrazeDialect {
        var configuration = try connectedContent ?? Workspace.offlineConnectedContent(templates: folders.templates)
        if let credentials {
            configuration?.credentials.merge(credentials.basic) { _, new in new }
            configuration?.tokenCredentials.merge(credentials.tokens) { _, new in new }
        }
        return BrazeDialect(contentBlocks: DirectoryContentBlocks(directory: folders.templates.appendingPathComponent("content_blocks")),
                            connectedContent: configuration, catalogs: folders.catalogs.map { DirectoryCatalogs(directory: $0) },
                            promotionCodes: folders.promotionCodes.map { promotionCodes.ledger(lists: $0) })
    }

    /// Reads and compiles the campaign `name` (or a campaign file's path).
    /// - Throws: ``CampaignError`` with the file, line and column of what is wrong.
    public func compile(_ name: String, connectedContent: ConnectedContentConfiguration? = nil, errorMode: LiquidErrorMode = .lax,
                        promotionCodes: PromotionCodeUse = .handOut(ledger: nil)) throws -> CompiledCampaign {
        let url = FileManager.default.fileExists(atPath: name) && !Workspace.isDirectory(URL(fileURLWithPath: name))
            ? URL(fileURLWithPath: name) : try campaignFile(named: name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CampaignError(file: url.path, location: nil, message: "cannot read the campaign file")
        }
        let text = try CampaignError.text(data, file: url.path)
        let campaign = try Campaign(yaml: text, file: url.path)
        return try CompiledCampaign(campaign, dialect: try dialect(connectedContent: connectedContent, promotionCodes: promotionCodes),
                                    fileText: text, errorMode: errorMode)
    }

    /// The profile `name` (`Profiles/NAME.json`, a Braze user export).
    /// - Throws: ``CampaignError`` when there is no such profile or it does not read.
    public func profile(_ name: String) throws -> LiquidValue {
        guard let folder = folders.profiles else {
            throw CampaignError(file: name, location: nil, message: "the workspace has no Profiles/ folder")
        }
        let file = folder.lastPathComponent + "/" + name + ".json"
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name + ".json").path) else {
            throw CampaignError(file: file, location: nil, message: "no such profile")
        }
        return try Workspace.profile(json: try CampaignError.text(data, file: file), file: file)
    }

    /// Every profile, by name, sorted.
    public func profiles() throws -> [(name: String, profile: LiquidValue)] {
        guard let folder = folders.profiles else { return [] }
        return try Workspace.profiles(in: folder).map { (name: $0.0, profile: $0.1) }
    }
}

/// How a workspace's promotion codes (`PromotionCodes/LIST.csv`) are used.
public enum PromotionCodeUse: Sendable, Equatable {
    /// Handed out for real: each code recorded, durably, in `ledger` (default: the lists'
    /// folder) before a payload that shows it is written, never handed out twice.
    case handOut(ledger: URL?)
    /// Handed out in memory only, after what earlier runs recorded: previews and dry runs
    /// show the codes a run would give, and use none.
    case dryRun
    /// In memory only, as from a fresh list (earlier runs not read): golden files.
    case sample

    /// The ledger over the lists in `lists`.
    func ledger(lists: URL) -> PromotionCodeLedger {
        switch self {
        case .handOut(let ledger): return PromotionCodeLedger(directory: lists, ledgerDirectory: ledger)
        case .dryRun: return PromotionCodeLedger(directory: lists, consume: false)
        case .sample: return PromotionCodeLedger(directory: lists, consume: false, readRecord: false)
        }
    }
}
