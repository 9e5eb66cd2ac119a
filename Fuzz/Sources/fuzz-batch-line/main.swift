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

// The same input read whole, through the chunked reader with a small buffer and line limit
// (pieces of 1 to 16 bytes, as a pipe may hand them over: the first byte says how many):
// - plain, as `pushliquid batch` reads a file;
// - numbered as the Spark job feeds a partition (`N<TAB>` before each line, and with the
//   second bit of the first byte, each document as `base64:`): the results must be the plain
//   run's, byte for byte;
// - as given, read as numbered input: either a line without its number (NumberedLineError), or
//   one result line of JSON per input line.
private func limited(numbered: Bool) -> BatchRenderer {
    var r = BatchRenderer(campaign: renderer.campaign, platform: .ios, chunkSize: 3, chunkBytes: 96, maxLineBytes: 48, workers: 1)
    r.numberedInput = numbered
    return r
}
private let plain = limited(numbered: false), numbered = limited(numbered: true)

private func run(_ renderer: BatchRenderer, _ input: [UInt8], piece: Int) throws -> [UInt8] {
    var offset = 0
    var output: [UInt8] = []
    _ = try renderer.run(read: { buffer in
        let n = min(piece, buffer.count, input.count - offset)
        input.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
        offset += n
        return n
    }, write: { output += $0 })
    return output
}

// SwiftPM links an executable's entry point as `<module>_main`: the top-level code of this
// file is it, and hands the process to libFuzzer.
exit(runFuzzer(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    let input = Array(bytes(data, size))
    var line = String(decoding: input, as: UTF8.self)
    line.removeAll { $0 == "\n" }
    let (text, _) = renderer.renderLine(Substring(line), number: 1)
    guard !text.contains("\n"), (try? JSONValueParser.parse(text)) != nil else { fatalError("not one line of JSON: \(text)") }

    let mode = Int(input.first ?? 0), piece = 1 + mode % 16
    guard let expected = try? run(plain, input, piece: piece) else { fatalError("the plain run threw") }
    var lines = input.split(separator: 0x0A, omittingEmptySubsequences: false)
    if input.last == 0x0A || input.isEmpty { lines.removeLast() }
    let base64 = mode & 0x40 != 0
    // (A document that starts with base64: is no JSON; numbered input reads it as bytes.)
    if base64 || !lines.contains(where: { $0.starts(with: Array("base64:".utf8)) }) {
        var fed: [UInt8] = []
        for (k, line) in lines.enumerated() {
            fed += Array("\(k + 1)\t".utf8)
            fed += base64 ? Array(("base64:" + Data(line).base64EncodedString()).utf8) : Array(line)
            if k < lines.count - 1 || input.last == 0x0A { fed.append(0x0A) }
        }
        guard let got = try? run(numbered, fed, piece: piece) else { fatalError("numbered input threw") }
        guard got == expected else {
            fatalError("numbered input differs:\n\(String(decoding: expected, as: UTF8.self))\n---\n\(String(decoding: got, as: UTF8.self))")
        }
    }

    let output: [UInt8]
    do { output = try run(numbered, input, piece: piece) } catch is BatchRenderer.NumberedLineError {
        return 0
    } catch {
        fatalError("numbered input: \(error)")
    }
    let results = output.split(separator: 0x0A)
    guard results.count == lines.count else { fatalError("numbered input: \(lines.count) lines, \(results.count) results") }
    for result in results {
        guard case .int? = try? JSONValueParser.parse(String(decoding: result, as: UTF8.self)).property("line") else {
            fatalError("numbered input: not a result line: \(String(decoding: result, as: UTF8.self))")
        }
    }
    return 0
})
