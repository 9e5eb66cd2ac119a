import Foundation
import Liquid
import Personalization

/// Golden payloads: every campaign in `Templates/` rendered for every profile in
/// `Profiles/`, on both platforms, compared with `Tests/Golden/<campaign>/<profile>.json`.
public struct GoldenFiles: Sendable {
    /// `Templates/`.
    public var templates: URL
    /// `Profiles/`.
    public var profiles: URL
    /// `Tests/Golden/`.
    public var golden: URL
    /// The send time used when a campaign's preview sets none.
    public static let defaultNow = parseISO8601("2026-11-22T10:00:00Z")!

    /// Golden files for a repository layout.
    public init(templates: URL, profiles: URL, golden: URL) {
        self.templates = templates
        self.profiles = profiles
        self.golden = golden
    }

    /// The repository's own layout under `root`.
    public init(root: URL) {
        self.init(templates: root.appendingPathComponent("Templates"), profiles: root.appendingPathComponent("Profiles"),
                  golden: root.appendingPathComponent("Tests/Golden"))
    }

    /// One golden file's expected and actual text.
    public struct Entry: Sendable {
        /// The campaign's name.
        public var campaign: String
        /// The profile file's name without extension.
        public var profile: String
        /// The golden file.
        public var path: URL
        /// What rendering gives now.
        public var actual: String
        /// The committed file's text, if it exists.
        public var expected: String?
        /// Whether they agree.
        public var matches: Bool { actual == expected }
    }

    /// Renders everything. Throws for unreadable campaigns or profiles.
    public func entries() throws -> [Entry] {
        // Catalogs and promotion codes beside Templates/; codes as from a fresh list, never used.
        let dialect = try CampaignWorkspace(folders: .found(templates: templates, profiles: profiles)).dialect(promotionCodes: .sample)
        var out: [Entry] = []
        for campaignURL in try Workspace.campaignFiles(in: templates) {
            guard let data = FileManager.default.contents(atPath: campaignURL.path) else {
                throw CampaignError(file: "Templates/" + campaignURL.lastPathComponent, location: nil, message: "cannot read the campaign file")
            }
            let text = try CampaignError.text(data, file: "Templates/" + campaignURL.lastPathComponent)
            let campaign = try Campaign(yaml: text, file: "Templates/" + campaignURL.lastPathComponent)
            let compiled = try CompiledCampaign(campaign, dialect: dialect, fileText: text)
            for (profileName, profile) in try Workspace.profiles(in: profiles) {
                let document = try compiled.previewDocument(profile: profile, fallbackNow: Self.defaultNow)
                var result = LiquidObject()
                for platform in Platform.allCases {
                    result[platform.rawValue] = compiled.render(document, platform: platform).json
                }
                let path = golden.appendingPathComponent(campaign.name).appendingPathComponent(profileName + ".json")
                let expected = FileManager.default.contents(atPath: path.path).map { String(decoding: $0, as: UTF8.self) }
                out.append(Entry(campaign: campaign.name, profile: profileName, path: path,
                                 actual: LiquidValue.object(result).prettyJSONString + "\n", expected: expected))
            }
        }
        return out
    }

    /// Golden files on disk that no campaign and profile produce any more.
    public func staleFiles(_ entries: [Entry]) -> [URL] {
        let wanted = Set(entries.map { $0.path.standardizedFileURL.path })
        guard let e = FileManager.default.enumerator(at: golden, includingPropertiesForKeys: nil) else { return [] }
        return e.compactMap { $0 as? URL }.filter { $0.pathExtension == "json" && !wanted.contains($0.standardizedFileURL.path) }
    }

    /// Writes every golden file anew and removes stale ones; returns how many changed.
    @discardableResult
    public func update() throws -> Int {
        let all = try entries()
        var changed = 0
        for entry in all where !entry.matches {
            try FileManager.default.createDirectory(at: entry.path.deletingLastPathComponent(), withIntermediateDirectories: true)
            try entry.actual.write(to: entry.path, atomically: true, encoding: .utf8)
            changed += 1
        }
        for stale in staleFiles(all) {
            try FileManager.default.removeItem(at: stale)
            changed += 1
        }
        return changed
    }
}
