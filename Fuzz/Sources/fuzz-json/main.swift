import Foundation
import FuzzSupport
import Liquid
import Personalization

// An input: JSON text, read as render data and as a render context document, then written
// back, inspected, compared and rendered the ways a send pipeline does.
private let readers = try! [
    "{{ profile.first_name }}{{ profile | size }}{% for x in items %}{{ x }}{% endfor %}{{ items | join: ',' }}",
    "{{ profile | json_escape }}{{ items | sort_natural | first }}{{ items | map: 'k' | compact | size }}",
    "{{ n | plus: 1 }}{{ n | date: '%Y' }}{{ n | round: 2 }}{{ items | sum }}{{ items | uniq | size }}",
].map { try fuzzBraze.environment(limits: fuzzLimits).parse($0) }

// SwiftPM links an executable's entry point as `<module>_main`: the top-level code of this
// file is it, and hands the process to libFuzzer.
exit(runFuzzer(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    let input = bytes(data, size)
    // The same bytes as the files a workspace holds: a catalog (CSV and JSON), a promotion
    // code list, Connected Content credentials.
    let fileText = String(decoding: input, as: UTF8.self)
    _ = try? Catalog(csv: fileText, name: "c", file: "c.csv")
    _ = try? Catalog(json: fileText, name: "c", file: "c.json")
    _ = try? PromotionCodeLedger.codes(csv: fileText, display: "l.csv")
    _ = try? ConnectedContentCredentials(json: fileText, source: "credentials.json")
    var parser = JSONValueParser(bytes: input)
    guard let value = try? parser.parse() else { return 0 }
    // Devices and other attributes worked out from whatever a profile holds.
    for platform in ["ios", "android"] { _ = ProfileAttributes.targetedDevice(profile: value, platform: platform) }
    _ = ProfileAttributes.mostRecentlyUsedDevice(profile: value)
    _ = ProfileAttributes.mostRecentLocation(profile: value)
    _ = ProfileAttributes.lastUsedAppDate(profile: value)
    // Written back, it reads as the same value.
    let text = value.jsonString
    guard let again = try? JSONValueParser.parse(text) else { fatalError("jsonString does not parse: \(text)") }
    _ = again.prettyJSONString
    _ = value.renderedString
    _ = value.hashValue
    for reader in readers {
        _ = try? reader.render(value, options: fuzzOptions)
        _ = try? reader.render(["items": value, "profile": value, "n": value], options: fuzzOptions)
    }
    if let document = try? RenderContextDocument(value: value) {
        _ = document.externalID
        _ = try? readers[0].renderMessage(document)
    }
    return 0
})
