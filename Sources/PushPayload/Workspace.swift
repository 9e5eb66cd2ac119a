import Foundation
import Liquid
import Personalization

/// The repository's campaign and profile folders.
public enum Workspace {
    /// `*.yml`, `*.yaml` and `*.json` campaigns directly in `templates`, sorted.
    public static func campaignFiles(in templates: URL) throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: templates.path)
        return names.filter { ["yml", "yaml", "json"].contains(($0 as NSString).pathExtension) && $0 != "connected_content.json" }
            .sorted().map { templates.appendingPathComponent($0) }
    }

    /// Profiles (`*.json`, Braze user-export objects) by file name without extension, sorted.
    public static func profiles(in folder: URL) throws -> [(String, LiquidValue)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            let url = folder.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw CampaignError(file: "Profiles/" + name, location: nil, message: "cannot read the profile")
            }
            let text = try CampaignError.text(data, file: "Profiles/" + name)
            return ((name as NSString).deletingPathExtension, try profile(json: text, file: "Profiles/" + name))
        }
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
