import Foundation
import Liquid
import Personalization

/// The repository's campaign and profile folders.
///
/// A workspace is a folder with `Templates/` (campaigns, `content_blocks/`,
/// `connected_content.json`) and `Profiles/` (Braze user exports). Tools find it from a
/// campaign file's location, as git finds a repository's root, so that a command gives the same
/// answer from any folder.
public enum Workspace {
    /// Where a campaign's content blocks, offline Connected Content answers and profiles are.
    public struct Folders: Sendable, Equatable {
        /// The campaigns folder: `content_blocks/` and `connected_content.json` are in it.
        public var templates: URL
        /// The profiles folder, or `nil` when there is none.
        public var profiles: URL?
        /// The catalogs folder (`Catalogs/`: `NAME.csv`, `NAME.json`), or `nil` when there is none.
        public var catalogs: URL?
        /// The promotion code lists folder (`PromotionCodes/`: `LIST.csv`, and what runs used
        /// of each), or `nil` when there is none.
        public var promotionCodes: URL?

        /// Folders as given.
        public init(templates: URL, profiles: URL?, catalogs: URL? = nil, promotionCodes: URL? = nil) {
            self.templates = templates
            self.profiles = profiles
            self.catalogs = catalogs
            self.promotionCodes = promotionCodes
        }

        /// `templates` and `profiles`, with the catalogs and promotion code lists beside them
        /// (the nearest `Catalogs/` and `PromotionCodes/` in the templates folder or above it).
        static func found(templates: URL, profiles: URL?) -> Folders {
            Folders(templates: templates, profiles: profiles, catalogs: nearest("Catalogs", from: templates),
                    promotionCodes: nearest("PromotionCodes", from: templates))
        }
    }

    /// The folders of the workspace that holds `campaignFile`: campaigns, blocks and answers
    /// are in the folder the file is in; profiles, catalogs and promotion code lists in the
    /// nearest `Profiles/`, `Catalogs/` and `PromotionCodes/` folders in that folder or above it.
    public static func folders(forCampaign campaignFile: URL) -> Folders {
        let templates = campaignFile.standardizedFileURL.deletingLastPathComponent()
        return .found(templates: templates, profiles: nearest("Profiles", from: templates))
    }

    /// The folders of the workspace around `directory`: the nearest folder, `directory` or one
    /// above it, that has `Templates/`; `nil` when there is none.
    public static func folders(around directory: URL) -> Folders? {
        if isDirectory(directory.standardizedFileURL), directory.standardizedFileURL.lastPathComponent == "Templates" {
            let templates = directory.standardizedFileURL
            return .found(templates: templates, profiles: nearest("Profiles", from: templates))
        }
        guard let templates = nearest("Templates", from: directory.standardizedFileURL) else { return nil }
        return .found(templates: templates, profiles: nearest("Profiles", from: templates.deletingLastPathComponent()))
    }

    /// The folder `name` in `start` or the nearest folder above it that has one.
    static func nearest(_ name: String, from start: URL) -> URL? {
        var folder = start
        while true {
            let candidate = folder.appendingPathComponent(name)
            if isDirectory(candidate) { return candidate }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path || folder.path == "/" { return nil }
            folder = parent
        }
    }

    /// Whether `url` is a folder.
    public static func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }

    /// `*.yml`, `*.yaml` and `*.json` campaigns directly in `templates`, sorted.
    public static func campaignFiles(in templates: URL) throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: templates.path)
        return names.filter { ["yml", "yaml", "json"].contains(($0 as NSString).pathExtension) && $0 != "connected_content.json" }
            .sorted().map { templates.appendingPathComponent($0) }
    }

    /// Profiles (`*.json`, Braze user-export objects) by file name without extension, sorted.
    /// - Throws: the first ``CampaignError`` of ``profilesAndErrors(in:)``.
    public static func profiles(in folder: URL) throws -> [(String, LiquidValue)] {
        let (profiles, errors) = profilesAndErrors(in: folder)
        if let first = errors.first { throw first }
        return profiles
    }

    /// The profiles in `folder` that read, and an error for each that does not (a folder that
    /// cannot be listed is one error).
    public static func profilesAndErrors(in folder: URL) -> (profiles: [(String, LiquidValue)], errors: [CampaignError]) {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted() } catch {
            return ([], [CampaignError(file: folder.path, location: nil, message: "cannot list the profiles folder")])
        }
        var profiles: [(String, LiquidValue)] = [], errors: [CampaignError] = []
        for name in names {
            let url = folder.appendingPathComponent(name)
            let file = folder.lastPathComponent + "/" + name
            do {
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    throw CampaignError(file: file, location: nil, message: "cannot read the profile")
                }
                profiles.append(((name as NSString).deletingPathExtension, try profile(json: try CampaignError.text(data, file: file), file: file)))
            } catch let error as CampaignError {
                errors.append(error)
            } catch {
                errors.append(CampaignError(file: file, location: nil, message: "\(error)"))
            }
        }
        return (profiles, errors)
    }

    /// Reads a profile (a Braze user-export object); errors name the file, line and column.
    public static func profile(json: String, file: String) throws -> LiquidValue {
        let value: LiquidValue
        do { value = try JSONValueParser.parse(json) } catch let e as JSONValueParser.SyntaxError {
            throw CampaignError(file: file, location: SourceLocation(line: e.line, column: e.column), message: "invalid JSON: \(e.message)")
        }
        guard case .object(let o) = value else {
            throw CampaignError(file: file, location: SourceLocation(line: 1, column: 1), message: "a profile is a JSON object (a Braze user export)")
        }
        if let ca = o["custom_attributes"], !(ca.isNil) {
            guard case .object = ca else { throw CampaignError(file: file, location: nil, message: "custom_attributes must be an object") }
        }
        return value
    }

    /// Offline Connected Content answers from `Templates/connected_content.json`, when present.
    public static func offlineConnectedContent(templates: URL) throws -> ConnectedContentConfiguration? {
        let url = templates.appendingPathComponent("connected_content.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let text = try CampaignError.text(data, file: url.path)
        return ConnectedContentConfiguration(client: try FixtureConnectedContentClient(json: text))
    }
}
