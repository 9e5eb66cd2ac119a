import Foundation
import FuzzSupport
import Liquid
import Personalization
import PushPayload

// An input: a campaign file (YAML), loaded, compiled and rendered for a profile on both platforms.
private let profile = try! JSONValueParser.parse(String(decoding: try! Data(contentsOf: repositoryRoot.appendingPathComponent("Profiles/ana.json")), as: UTF8.self))

// SwiftPM links an executable's entry point as `<module>_main`: the top-level code of this
// file is it, and hands the process to libFuzzer.
exit(runFuzzer(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    let text = String(decoding: bytes(data, size), as: UTF8.self)
    guard let campaign = try? Campaign(yaml: text, file: "fuzz.yml"),
          let compiled = try? CompiledCampaign(campaign, dialect: fuzzBraze, fileText: text, recordAttributes: true)
    else { return 0 }
    _ = compiled.attributesMissing(from: [profile])
    guard let document = try? compiled.previewDocument(profile: profile) else { return 0 }
    for platform in [Platform.ios, .android] {
        if case .rendered(let payload) = compiled.render(document, platform: platform) { _ = payload.serialized }
    }
    return 0
})
