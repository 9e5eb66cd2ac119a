import Foundation
import FuzzSupport
import Liquid
import Personalization
import PushPayload

// An input: one NDJSON line of `pushliquid batch`, rendered with the bundled learning-progress
// campaign into its result line (which must be one line of JSON).
private let renderer: BatchRenderer = {
    let url = repositoryRoot.appendingPathComponent("Templates/learning-progress.yml")
    let text = String(decoding: try! Data(contentsOf: url), as: UTF8.self)
    let campaign = try! CompiledCampaign(try! Campaign(yaml: text, file: url.path), dialect: fuzzBraze, fileText: text)
    return BatchRenderer(campaign: campaign, platform: .ios, workers: 1)
}()

// SwiftPM links an executable's entry point as `<module>_main`: the top-level code of this
// file is it, and hands the process to libFuzzer.
exit(runFuzzer(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    var line = String(decoding: bytes(data, size), as: UTF8.self)
    line.removeAll { $0 == "\n" }
    let (text, _) = renderer.renderLine(Substring(line), number: 1)
    guard !text.contains("\n"), (try? JSONValueParser.parse(text)) != nil else { fatalError("not one line of JSON: \(text)") }
    return 0
})
