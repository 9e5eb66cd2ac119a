import Foundation
import FuzzSupport
import Liquid
import Personalization
import PushPayload

// An input: a campaign file (YAML), loaded (as bytes: invalid UTF-8 and byte order marks
// included), compiled, checked as `pushliquid check` does, and rendered for a profile on both
// platforms with its warnings.
private let profile = try! JSONValueParser.parse(String(decoding: try! Data(contentsOf: repositoryRoot.appendingPathComponent("Profiles/ana.json")), as: UTF8.self))

// SwiftPM links an executable's entry point as `<module>_main`: the top-level code of this
// file is it, and hands the process to libFuzzer.
exit(runFuzzer(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    guard let text = try? CampaignError.text(bytes(data, size), file: "fuzz.yml"),
          let campaign = try? Campaign(yaml: text, file: "fuzz.yml"),
          let compiled = try? CompiledCampaign(campaign, dialect: fuzzBraze, fileText: text, recordAttributes: true)
    else { return 0 }
    _ = compiled.attributesMissing(from: [profile])
    for diagnostic in compiled.checkDiagnostics() { _ = diagnostic.description }
    for attribute in compiled.attributes.flatMap(\.reads) { _ = compiled.firstUse(of: attribute.description) }
    guard let document = try? compiled.previewDocument(profile: profile) else { return 0 }
    for platform in [Platform.ios, .android] {
        var warnings: [CampaignDiagnostic] = []
        if case .rendered(let payload) = compiled.render(document, platform: platform, warnings: &warnings) { _ = payload.serialized }
        for warning in warnings { _ = warning.description }
    }
    return 0
})
