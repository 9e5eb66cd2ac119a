import ContentViews
import Foundation
import Liquid
import Personalization
import PushPayload

/// A workspace as the studio shows it: for a campaign, every profile's iOS and Android
/// notification, content view, payload details and problems, as one JSON document the page
/// draws (``snapshot(campaign:)``).
///
/// Everything is rendered as `pushliquid preview` renders it: offline Connected Content
/// answers, promotion codes handed out in memory only (each profile its own, none used).
public struct StudioWorkspace: Sendable {
    /// The workspace's folders.
    public let folders: Workspace.Folders

    /// The workspace of `folders`.
    public init(folders: Workspace.Folders) { self.folders = folders }

    /// The campaigns' names, sorted.
    public func campaigns() -> [String] {
        ((try? Workspace.campaignFiles(in: folders.templates)) ?? []).map { $0.deletingPathExtension().lastPathComponent }
    }

    /// The campaign shown when none is asked for: `learning-progress` when there is one, else the first.
    public func defaultCampaign() -> String? {
        let all = campaigns()
        return all.contains("learning-progress") ? "learning-progress" : all.first
    }

    /// The document the page draws for `campaign`: `{"campaign", "campaigns", "file", "problems",
    /// "error", "contentView", "profiles": [{"name", "externalID", "ios": {...}, "android": {...}}]}`.
    public func snapshot(campaign name: String) -> LiquidValue {
        var out = LiquidObject()
        out["campaign"] = .string(name)
        out["campaigns"] = .array(campaigns().map { .string($0) })
        out["caps"] = ["ios": .int(Platform.ios.sizeLimit), "android": .int(Platform.android.sizeLimit)]
        let workspace = CampaignWorkspace(folders: folders)
        let compiled: CompiledCampaign
        do {
            let url = try workspace.campaignFile(named: name)
            out["file"] = .string(display(url))
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw CampaignError(file: display(url), location: nil, message: "cannot read the campaign file")
            }
            let text = try CampaignError.text(data, file: display(url))
            let campaign = try Campaign(yaml: text, file: display(url))
            compiled = try CompiledCampaign(campaign, dialect: try workspace.dialect(promotionCodes: .dryRun), fileText: text)
        } catch {
            out["error"] = .string("\(error)")
            out["profiles"] = []
            return .object(out)
        }
        out["contentView"] = compiled.campaign.contentView.map { .string($0.rawValue) } ?? .nil
        out["problems"] = .array(compiled.checkDiagnostics().map { d in
            ["severity": .string(d.severity.rawValue), "text": .string(d.description)]
        })
        var profiles: [LiquidValue] = []
        var profileErrors: [LiquidValue] = []
        if let folder = folders.profiles {
            let (good, bad) = Workspace.profilesAndErrors(in: folder)
            profileErrors = bad.map { .string($0.description) }
            for (profileName, profile) in good {
                var p = LiquidObject()
                p["name"] = .string(profileName)
                p["externalID"] = profile.property("external_id")
                do {
                    let document = try compiled.previewDocument(profile: profile, fallbackNow: GoldenFiles.defaultNow)
                    for platform in Platform.allCases {
                        p[platform.rawValue] = Self.platformPreview(compiled, compiled.preview(document, platform: platform), platform: platform, profile: profile)
                    }
                } catch {
                    p["error"] = .string("\(error)")
                }
                profiles.append(.object(p))
            }
        }
        out["profiles"] = .array(profiles)
        out["profileErrors"] = .array(profileErrors)
        return .object(out)
    }

    /// One platform's notification, details and content view.
    static func platformPreview(_ campaign: CompiledCampaign, _ preview: PayloadPreview, platform: Platform, profile: LiquidValue) -> LiquidValue {
        var o = LiquidObject()
        let fields = Dictionary(preview.fields.map { ($0.name, $0.text) }, uniquingKeysWith: { a, _ in a })
        func text(_ name: String) -> LiquidValue {
            guard let t = fields[name], !t.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return .nil }
            return .string(t)
        }
        switch preview.result {
        case .rendered: o["status"] = "rendered"
        case .aborted(let reason, let field):
            o["status"] = "aborted"
            o["reason"] = reason.map { .string($0) } ?? "abort_message called"
            o["field"] = .string(field)
            o["place"] = preview.abortPlace.map { .string($0) } ?? .string(campaign.campaign.file)
        case .failed(let error):
            if case .payloadTooLarge(_, _, let largest, _) = error {
                o["status"] = "over_cap"
                o["largest"] = .array(largest.map { .string($0) })
            } else {
                o["status"] = "failed"
            }
            o["error"] = .string(error.description)
        }
        o["title"] = text("title")
        if platform == .ios { o["subtitle"] = campaign.campaign.subtitle == nil ? .nil : text("subtitle") }
        o["body"] = text("body")
        let c = campaign.campaign
        switch platform {
        case .ios:
            o["badge"] = text("ios.badge")
            o["image"] = text("ios.image_url")
            o["deepLink"] = text("ios.deep_link")
            o["category"] = c.ios.category.map { .string($0) } ?? .nil
            o["sound"] = c.ios.sound.map { .string($0) } ?? .nil
        case .android:
            o["image"] = text("android.image_url")
            o["deepLink"] = text("android.deep_link")
            o["summary"] = text("android.summary_text")
            o["channel"] = c.android.channelID.map { .string($0) } ?? .nil
        }
        let pairs = preview.fields.filter { $0.name.hasPrefix("key_value_pairs.") }
        o["keyValues"] = .array(pairs.map { [.string($0.key), .string($0.text)] })
        o["bytes"] = preview.payloadBytes.map { .int($0) } ?? .nil
        o["cap"] = .int(platform.sizeLimit)
        var extras = LiquidObject()
        for e in preview.messageExtras { extras[e.key] = .string(e.value) }
        o["messageExtras"] = .object(extras)
        o["warnings"] = .array(preview.warnings.map { .string($0.description) })
        if let kind = c.contentView, !pairs.isEmpty {
            o["contentView"] = contentView(kind, pairs: pairs, profile: profile)
        }
        return .object(o)
    }

    /// The key-value pairs as the content extension reads them.
    static func userInfo(_ pairs: [RenderedCampaignField]) -> LiquidValue {
        var info = LiquidObject()
        for f in pairs { info[f.key] = .string(f.text) }
        return .object(info)
    }

    /// The seed the studio shuffles match-game decks with (as `pushliquid preview` does).
    static let gameSeed: UInt64 = 1

    /// What the content view shows, from the key-value pairs.
    static func contentView(_ kind: ContentViewKind, pairs: [RenderedCampaignField], profile: LiquidValue) -> LiquidValue {
        var o: LiquidObject = ["kind": .string(kind.rawValue)]
        let info = userInfo(pairs)
        do {
            switch kind {
            case .progress:
                let m = try ProgressModel(userInfo: info)
                let language = profile.property("language").stringValue ?? "en"
                let country = profile.property("country").stringValue.map { "_" + $0 } ?? ""
                let zone = profile.property("time_zone").stringValue.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
                o["percent"] = .int(m.percent)
                o["completed"] = .int(m.completed)
                o["total"] = .int(m.total)
                o["summary"] = .string(m.summary(locale: Locale(identifier: language + country), timeZone: zone))
            case .capture:
                let m = try CaptureModel(userInfo: info)
                o["title"] = .string(m.title)
                o["detail"] = m.detail.map { .string($0) } ?? .nil
                o["label"] = .string(m.kind == .email ? "E-mail" : "Phone")
                o["placeholder"] = .string(m.kind == .email ? "you@example.com" : "+1 555 0100")
                o["prefill"] = m.prefill.map { .string($0) } ?? .nil
                o["pattern"] = .string(m.pattern.source)
                o.merge(captureState(m))
            case .matchGame:
                let m = try MatchGameModel(userInfo: info, seed: gameSeed)
                o["cards"] = .array(m.cards.map { .string($0.symbol) })
                o["maxTurns"] = .int(m.maxTurns)
                o["reward"] = .int(m.reward)
            }
        } catch {
            o["error"] = .string("\(error)")
        }
        return .object(o)
    }

    /// A capture model's state as the page shows it.
    static func captureState(_ m: CaptureModel) -> LiquidObject {
        var o = LiquidObject()
        switch m.state {
        case .prompting: o["state"] = "prompting"; o["valid"] = false
        case .editing(let text, let valid): o["state"] = "editing"; o["value"] = .string(text); o["valid"] = .bool(valid)
        case .submitted(let v): o["state"] = "submitted"; o["value"] = .string(v)
        case .confirmed(let v): o["state"] = "confirmed"; o["value"] = .string(v)
        case .dismissed(let d): o["state"] = "dismissed"; o["dismissal"] = .string(d.rawValue)
        }
        o["actions"] = .array(m.availableActions.map { ["id": .string($0.rawValue), "dismissal": .string($0.dismissal.rawValue)] })
        return o
    }

    /// The capture form of `campaign` for `profile` on `platform` after the user typed `value`
    /// and (optionally) chose `action`: the content extension's own model (PCRE2 validation).
    public func capture(campaign name: String, profile profileName: String, platform: Platform, value: String, action: String?) -> LiquidValue {
        do {
            let workspace = CampaignWorkspace(folders: folders)
            let compiled = try workspace.compile(name, promotionCodes: .dryRun)
            let document = try compiled.previewDocument(profile: try workspace.profile(profileName), fallbackNow: GoldenFiles.defaultNow)
            let preview = compiled.preview(document, platform: platform)
            var m = try CaptureModel(userInfo: Self.userInfo(preview.fields.filter { $0.name.hasPrefix("key_value_pairs.") }))
            m.edit(value)
            var o = Self.captureState(m)
            if let action {
                o["dismissal"] = .string(try m.perform(action).rawValue)
                o.merge(Self.captureState(m))
            }
            return .object(o)
        } catch {
            return ["error": .string("\(error)")]
        }
    }

    /// `url` relative to the workspace root (`Templates/x.yml`).
    func display(_ url: URL) -> String {
        let root = folders.templates.deletingLastPathComponent().standardizedFileURL.path
        let path = url.standardizedFileURL.path
        return path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }

    /// What the workspace's files are now (paths, sizes, modification times): the studio
    /// redraws when it changes.
    public func fingerprint() -> [String: String] {
        var out: [String: String] = [:]
        let fm = FileManager.default
        var roots = [folders.templates]
        for extra in [folders.profiles, folders.catalogs, folders.promotionCodes] { if let extra { roots.append(extra) } }
        for root in roots {
            guard let e = fm.enumerator(at: root, includingPropertiesForKeys: [.contentModificationDateKey, .fileSizeKey]) else { continue }
            for case let url as URL in e {
                // The record of codes handed out changes with sends, not with the campaign.
                if url.pathExtension == "used" { continue }
                let values = try? url.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey])
                let stamp = values?.contentModificationDate?.timeIntervalSince1970 ?? 0
                out[url.path] = "\(values?.fileSize ?? -1):\(stamp)"
            }
        }
        return out
    }
}

extension LiquidObject {
    /// Adds `other`'s keys over this object's.
    mutating func merge(_ other: LiquidObject) {
        for (k, v) in other { self[k] = v }
    }
}
