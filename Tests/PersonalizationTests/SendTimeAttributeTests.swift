import Foundation
import Liquid
import LiquidTestSupport
import Personalization
import Testing

/// Attributes worked out from Braze's user export: the device a push is sent to, the most
/// recently used device and app, location and subscription states.
@Suite struct SendTimeAttributeTests {
    /// A user with an iPhone (notifications off on an older iPad) and an Android phone, as
    /// Braze's user export writes them.
    static let profile = #"""
        {"external_id": "u1", "random_bucket": 2365, "most_recent_locale": "pt_BR",
         "last_coordinates": [-9.1393, 38.7223], "email_subscribe": "opted_in", "push_subscribe": "subscribed",
         "subscription_groups": [{"id": "grp-news", "name": "News", "status": "Subscribed"}, {"id": 42, "status": "Unsubscribed"}],
         "devices": [
           {"model": "iPad 7", "os": "iOS 16.1", "carrier": null, "idfv": "IPAD-1", "ad_tracking_enabled": false},
           {"model": "iPhone 15", "os": "iOS 17.2", "carrier": "Vodafone", "idfv": "IPHONE-1", "idfa": "IDFA-1", "ad_tracking_enabled": true},
           {"model": "Pixel 8", "os": "Android (U)", "carrier": "MEO", "device_id": "PIXEL-1", "google_ad_id": "GAID-1", "ad_tracking_enabled": true}
         ],
         "push_tokens": [
           {"app": "Learn", "platform": "iOS", "token": "t-ipad", "device_id": "IPAD-1", "notifications_enabled": false},
           {"app": "Learn", "platform": "iOS", "token": "t-iphone", "device_id": "IPHONE-1", "notifications_enabled": true},
           {"app": "Learn", "platform": "Android", "token": "t-pixel", "device_id": "PIXEL-1", "notifications_enabled": true}
         ],
         "apps": [
           {"name": "Learn", "platform": "iOS", "version": "5.1.0", "sessions": 40, "first_used": "2025-01-02T10:00:00.000Z", "last_used": "2026-11-01T08:00:00.000Z"},
           {"name": "Learn", "platform": "Android", "version": "5.2.0", "sessions": 3, "first_used": "2026-10-02T10:00:00.000Z", "last_used": "2026-11-20 07:30:00.000 UTC"}
         ]}
        """#

    func render(_ source: String, platform: String?, document extra: String = "") throws -> String {
        let doc = try RenderContextDocument(json: #"{"profile": \#(Self.profile)\#(extra)}"#)
        let message = try MessageTemplate(fields: [(name: "body", source: source)], environment: BrazeDialect().environment())
        guard case .rendered(let fields) = try message.render(doc, platform: platform) else { Issue.record("aborted"); return "" }
        return fields[0].text
    }

    @Test func targetedDeviceIsThePlatformsPushEnabledDevice() throws {
        let source = "{{targeted_device.${id}}}|{{targeted_device.${platform}}}|{{targeted_device.${model}}}|{{targeted_device.${os}}}|{{targeted_device.${carrier}}}|{{targeted_device.${idfa}}}|{{targeted_device.${google_ad_id}}}|{{targeted_device.${foreground_push_enabled}}}"
        #expect(try render(source, platform: "ios") == "IPHONE-1|ios|iPhone 15|iOS 17.2|Vodafone|IDFA-1||true")
        #expect(try render(source, platform: "android") == "PIXEL-1|android|Pixel 8|Android (U)|MEO||GAID-1|true")
        // No platform known (a bare template render): Braze's null.
        #expect(try render(source, platform: nil) == "|||||||")
        #expect(try render("{% if targeted_device.${platform} == 'ios' %}Tap to open on your iPhone{% else %}Open the app{% endif %}", platform: "ios") == "Tap to open on your iPhone")
    }

    @Test func theDocumentNamesTheTargetedDevice() throws {
        let perPlatform = #", "targeted_device": {"ios": {"id": "SENT-IOS", "model": "iPhone SE"}, "android": {"id": "SENT-AND"}}"#
        #expect(try render("{{targeted_device.${id}}} {{targeted_device.${model}}}", platform: "ios", document: perPlatform) == "SENT-IOS iPhone SE")
        #expect(try render("{{targeted_device.${id}}}", platform: "android", document: perPlatform) == "SENT-AND")
        let one = #", "targeted_device": {"id": "THE-ONE", "platform": "ios"}"#
        #expect(try render("{{targeted_device.${id}}}", platform: "android", document: one) == "THE-ONE")
    }

    @Test func aProfileWithoutDevicesHasNullDeviceAttributes() throws {
        let doc = try RenderContextDocument(json: #"{"profile": {"external_id": "x"}}"#)
        let template = try BrazeDialect().environment().parse("[{{targeted_device.${model} | default: 'no device'}}][{{most_recently_used_device.${platform}}}]")
        let context = template.makeContext(doc.value, options: doc.renderOptions())
        context.sessionInfo = BrazeSession.info(platform: "ios")
        try template.render(into: context)
        #expect(context.output == "[no device][]")
    }

    @Test func mostRecentlyUsedDeviceFollowsTheAppUsedLast() throws {
        // Android was used last (2026-11-20 against 2026-11-01).
        #expect(try render("{{most_recently_used_device.${platform}}} {{most_recently_used_device.${model}}} {{most_recently_used_device.${id}}}", platform: "ios")
                == "android Pixel 8 PIXEL-1")
        #expect(try render("{{${last_used_app_date}}}|{{${most_recent_app_version}}}", platform: nil) == "2026-11-20 07:30:00.000 UTC|5.2.0")
    }

    @Test func standardAttributesTheExportCarries() throws {
        #expect(try render("{{${random_bucket_number}}} {{${most_recent_locale}}}", platform: nil) == "2365 pt_BR")
        #expect(try render("{{${most_recent_location}.latitude}},{{${most_recent_location}.longitude}}", platform: nil) == "38.7223,-9.1393")
        #expect(try render("{{subscribed_state.${email_global}}} {{subscribed_state.${push_global}}} {{subscribed_state.${grp-news}}} {{subscribed_state.${42}}}", platform: nil)
                == "opted_in subscribed subscribed unsubscribed")
    }

    @Test func attributesCannotBeHiddenByAssign() throws {
        #expect(try render("{% assign profile = 'x' %}{{targeted_device.${model}}}", platform: "android") == "Pixel 8")
    }

    @Test func valueInProfileSeesDerivedAttributes() throws {
        let profile = try JSONValueParser.parse(Self.profile)
        #expect(AttributeReference(namespace: "targeted_device", name: "model").value(in: profile) == "iPhone 15")
        #expect(AttributeReference(namespace: nil, name: "most_recent_app_version").value(in: profile) == "5.2.0")
        #expect(AttributeReference(namespace: "api_trigger_properties", name: "x").value(in: profile) == nil)
        #expect(AttributeReference(namespace: "targeted_device", name: "model").value(in: [:]) == .nil)
    }
}
