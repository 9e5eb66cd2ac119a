import Foundation
import Liquid

/// Braze attributes that are not a single field of the user export but are worked out from it:
/// the device a push is sent to (`targeted_device.${...}`), the most recently used device,
/// the most recently used app's date and version, the most recent location and subscription
/// states. Each reads the export's own objects (`devices[]`, `push_tokens[]`, `apps[]`,
/// `last_coordinates`, `email_subscribe`, `subscription_groups[]`), and a profile that carries
/// the attribute under Braze's own name (`most_recently_used_device`, `most_recent_location`,
/// `last_used_app_date`, `subscribed_state`...) is read as it is.
public enum ProfileAttributes {
    /// Braze's platform names (`targeted_device.${platform}`): `ios`, `android`, `kindle`,
    /// `android_china`, `web`, `tvos`, `roku`, and others lowercased with spaces as `_`.
    public static func platformName(_ text: String) -> String {
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        switch lower {
        case "ios", "iphone", "ipad", "ipados": return "ios"
        case "android": return "android"
        case "tvos", "apple tv": return "tvos"
        case "android china", "android_china": return "android_china"
        default: return lower.replacingOccurrences(of: " ", with: "_")
        }
    }

    /// The device a push to `platform` (`ios`, `android`...) is sent to: the first push token of
    /// that platform that has notifications enabled (else its first token), joined with the
    /// device record of the same `device_id` (or `idfv`); without a token of that platform, the
    /// first device that is of it (its `platform`, `os`, or identifiers: `idfv`/`idfa` for iOS,
    /// `google_ad_id` for Android). The object has Braze's keys: `id`, `platform`, `model`,
    /// `os`, `carrier`, `idfa`, `google_ad_id`, `roku_ad_id`, `ad_tracking_enabled`, `browser`,
    /// `foreground_push_enabled`. `nil` when the profile has no device of that platform (as
    /// Braze's values are null when it cannot tell the device).
    public static func targetedDevice(profile: LiquidValue, platform: String) -> LiquidValue {
        let platform = platformName(platform)
        let devices = profile.property("devices").arrayValue ?? []
        let tokens = (profile.property("push_tokens").arrayValue ?? []).filter {
            $0.property("platform").stringValue.map(platformName) == platform
        }
        let token = tokens.first { $0.property("notifications_enabled") != .bool(false) } ?? tokens.first
        if let token {
            let id = token.property("device_id")
            let device = id.isNil ? nil : devices.first { deviceID($0) == id }
            return deviceObject(device ?? [:], platform: platform, token: token)
        }
        if let device = devices.first(where: { inferredPlatform($0) == platform }) {
            return deviceObject(device, platform: platform, token: nil)
        }
        return .nil
    }

    /// The user's most recently used device: the profile's `most_recently_used_device` when it
    /// has one; otherwise a device of the platform of the app used last (`apps[].last_used`),
    /// or the first device when no app says. `nil` without devices.
    public static func mostRecentlyUsedDevice(profile: LiquidValue) -> LiquidValue {
        let given = profile.property("most_recently_used_device")
        if case .object = given { return given }
        if let app = lastUsedApp(profile: profile), let platform = app.property("platform").stringValue {
            let device = targetedDevice(profile: profile, platform: platform)
            if !device.isNil { return device }
        }
        guard let first = (profile.property("devices").arrayValue ?? []).first else { return .nil }
        let platform = inferredPlatform(first)
        let tokens = profile.property("push_tokens").arrayValue ?? []
        let id = deviceID(first)
        let token = id.isNil ? nil : tokens.first { $0.property("device_id") == id }
        return deviceObject(first, platform: platform ?? token?.property("platform").stringValue.map(platformName), token: token)
    }

    /// The entry of `apps[]` with the latest `last_used` (times as the export writes them,
    /// ISO 8601 or Braze's `2020-07-10 15:00:00.000 UTC`), or `nil`.
    public static func lastUsedApp(profile: LiquidValue) -> LiquidValue? {
        var best: (date: Date, app: LiquidValue)?
        for app in profile.property("apps").arrayValue ?? [] {
            guard let text = app.property("last_used").stringValue, let date = exportTime(text) else { continue }
            if best == nil || date > best!.date { best = (date, app) }
        }
        return best?.app
    }

    /// `${last_used_app_date}`: the profile's `last_used_app_date`, else the latest
    /// `apps[].last_used` as the export wrote it.
    public static func lastUsedAppDate(profile: LiquidValue) -> LiquidValue {
        let given = profile.property("last_used_app_date")
        if !given.isNil { return given }
        return lastUsedApp(profile: profile)?.property("last_used") ?? .nil
    }

    /// `${most_recent_app_version}`: the profile's `most_recent_app_version`, else the version of
    /// the app used last.
    public static func mostRecentAppVersion(profile: LiquidValue) -> LiquidValue {
        let given = profile.property("most_recent_app_version")
        if !given.isNil { return given }
        return lastUsedApp(profile: profile)?.property("version") ?? .nil
    }

    /// `${most_recent_location}`: the profile's `most_recent_location`, else the export's
    /// `last_coordinates` (`[longitude, latitude]`) as `{"latitude": ..., "longitude": ...}`
    /// (Braze's docs read `${most_recent_location}.latitude`).
    public static func mostRecentLocation(profile: LiquidValue) -> LiquidValue {
        let given = profile.property("most_recent_location")
        if !given.isNil { return given }
        guard let pair = profile.property("last_coordinates").arrayValue, pair.count == 2,
              isNumber(pair[0]), isNumber(pair[1]) else { return .nil }
        return ["latitude": pair[1], "longitude": pair[0]]
    }

    /// `subscribed_state.${name}`: the profile's `subscribed_state.name`; else `email_global`
    /// and `push_global` are the export's `email_subscribe` and `push_subscribe`, and any other
    /// name is a subscription group's id in `subscription_groups[]`, whose `status` is given in
    /// lower case (`subscribed`, `unsubscribed`).
    public static func subscribedState(profile: LiquidValue, name: String) -> LiquidValue {
        let given = profile.property("subscribed_state")
        if case .object(let o) = given, let v = o[name] { return v }
        switch name {
        case "email_global": return profile.property("email_subscribe")
        case "push_global": return profile.property("push_subscribe")
        default:
            for group in profile.property("subscription_groups").arrayValue ?? [] {
                let id = group.property("id")
                if id.stringValue == name || { if case .int(let i) = id { return String(i) == name } else { return false } }() {
                    return group.property("status").stringValue.map { .string($0.lowercased()) } ?? group.property("status")
                }
            }
            return .nil
        }
    }

    // MARK: Helpers

    /// A device record's identifier: `device_id` (Android and newer exports), else `idfv`
    /// (iOS), else `id`.
    static func deviceID(_ device: LiquidValue) -> LiquidValue {
        for key in ["device_id", "idfv", "id"] {
            let v = device.property(key)
            if !v.isNil { return v }
        }
        return .nil
    }

    /// The platform a device record is of: its `platform`, else its `os` (`iOS 17.1`,
    /// `Android (Q)`, `tvOS`), else its identifiers (`idfv`/`idfa`: iOS, `google_ad_id`:
    /// Android, `roku_ad_id`: Roku).
    static func inferredPlatform(_ device: LiquidValue) -> String? {
        if let p = device.property("platform").stringValue { return platformName(p) }
        if let os = device.property("os").stringValue?.lowercased() {
            if os.hasPrefix("ios") || os.hasPrefix("ipados") { return "ios" }
            if os.hasPrefix("tvos") { return "tvos" }
            if os.hasPrefix("android") { return "android" }
        }
        if !device.property("idfv").isNil || !device.property("idfa").isNil { return "ios" }
        if !device.property("google_ad_id").isNil { return "android" }
        if !device.property("roku_ad_id").isNil { return "roku" }
        return nil
    }

    static func deviceObject(_ device: LiquidValue, platform: String?, token: LiquidValue?) -> LiquidValue {
        var o = LiquidObject()
        let id = deviceID(device)
        o["id"] = id.isNil ? (token?.property("device_id") ?? .nil) : id
        o["platform"] = platform.map { .string($0) } ?? .nil
        for key in ["model", "os", "carrier", "idfa", "google_ad_id", "roku_ad_id", "ad_tracking_enabled", "browser"] {
            o[key] = device.property(key)
        }
        let enabled: Bool
        if let token {
            if case .bool(let b) = token.property("notifications_enabled") { enabled = b } else { enabled = true }
        } else if case .bool(let b) = device.property("foreground_push_enabled") {
            enabled = b
        } else {
            enabled = false
        }
        o["foreground_push_enabled"] = .bool(enabled)
        return .object(o)
    }

    static func isNumber(_ v: LiquidValue) -> Bool {
        switch v {
        case .int, .double, .bigInt: return true
        default: return false
        }
    }

    /// A time as Braze's exports write it: ISO 8601, or `2020-07-10 15:00:00.000 UTC`.
    static func exportTime(_ text: String) -> Date? {
        if let d = LiquidTime.parseISO8601(text) { return d }
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix(" UTC") { t = String(t.dropLast(4)) + "Z" }
        return LiquidTime.parseISO8601(t.replacingOccurrences(of: " ", with: "T"))
    }
}
