import Foundation
import Liquid
import MallocInterposerSwift
import Personalization
import PushPayload

// Release-mode benchmarks with warm-up, repetitions, median and spread:
//   parse W1 · render W1 field by field over 10,000 contexts · the batch path · a 100-item
//   product list page · heap allocations per field render · peak memory of a 100,000-line batch.
// Run through Benchmarks/run.sh (LD_PRELOAD of the malloc counter is needed on Linux).

let reps = Int(ProcessInfo.processInfo.environment["BENCH_REPS"] ?? "") ?? 7
let here = URL(fileURLWithPath: #filePath)
let repo = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let shared = repo.deletingLastPathComponent().appendingPathComponent("shared/bench")

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("liquid-bench: \(message)\n".utf8))
    exit(1)
}

func read(_ url: URL) -> String {
    guard let d = FileManager.default.contents(atPath: url.path) else { fail("cannot read \(url.path)") }
    return String(decoding: d, as: UTF8.self)
}

func generate(_ count: Int) -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", shared.appendingPathComponent("gen_contexts.py").path, String(count), "42"]
    let pipe = Pipe()
    p.standardOutput = pipe
    do { try p.run() } catch { fail("cannot run gen_contexts.py: \(error)") }
    let d = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: d, as: UTF8.self)
}

/// Runs `body` (warm-up, then `reps` times) and prints median and spread of `operations`/s.
@MainActor func measure(_ label: String, unit: String, operations: Int, _ body: () throws -> Void) rethrows {
    try body()
    var seconds: [Double] = []
    for _ in 0..<reps {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    seconds.sort()
    let median = seconds[seconds.count / 2]
    let spread = (seconds.last! - seconds.first!) / median * 100
    print(String(format: "%-44@ median %9.3f ms  %12.0f %@/s  spread %5.1f%%", label as NSString, median * 1000, Double(operations) / median, unit, spread))
}

let contextsText = generate(10_000)
let w1Braze = read(shared.appendingPathComponent("w1-learning-progress.braze.json"))
let w1Standard = read(shared.appendingPathComponent("w1-learning-progress.standard.json"))
let braze = try FieldRenderBenchmark(templateSet: w1Braze, contexts: contextsText, braze: true)
let standard = try FieldRenderBenchmark(templateSet: w1Standard, contexts: contextsText, braze: false)
print("W1: \(braze.templates.count) fields, \(braze.contexts.count) contexts; \(reps) repetitions after a warm-up")

// 1. Parse.
try measure("parse W1 (Braze), 200 x 9 fields", unit: "parses", operations: 200 * braze.sources.count) { _ = try braze.parse(rounds: 200) }
try measure("parse W1 (standard), 200 x 9 fields", unit: "parses", operations: 200 * standard.sources.count) { _ = try standard.parse(rounds: 200) }

// 2. Field renders, one thread.
try measure("render W1 (Braze), one thread", unit: "field renders", operations: 90_000) { _ = try braze.run() }
try measure("render W1 (standard), one thread", unit: "field renders", operations: 90_000) { _ = try standard.run() }

// 3. The batch path: NDJSON lines in, payload lines out, every core.
var campaignSpec = try JSONValueParser.parse(w1Braze)
if case .object(var o) = campaignSpec { o["name"] = "w1"; campaignSpec = .object(o) }
let campaign = try CompiledCampaign(try Campaign(yaml: campaignSpec.jsonString, file: "w1.json"), dialect: BrazeDialect())
let lineCount = contextsText.split(separator: "\n").count
let batch = BatchRenderer(campaign: campaign, platform: .ios)
var outBytes = 0
let contextBytes = Array(contextsText.utf8)
try measure("batch W1 (NDJSON in, payloads out, all cores)", unit: "lines", operations: lineCount) {
    // As `pushliquid batch` reads standard input: blocks of bytes in, bytes out.
    var offset = 0
    _ = try batch.run(
        read: { buffer in
            let n = min(buffer.count, contextBytes.count - offset)
            contextBytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
            offset += n
            return n
        },
        write: { outBytes &+= $0.count })
}

// 4. A 100-item product list page.
let productPage = """
    <ul class="products">{% for p in products %}
      <li class="{% cycle 'odd', 'even' %}{% if p.available == false %} sold-out{% endif %}">
        <a href="/products/{{ p.handle | url_encode }}">{{ p.title | escape }}</a>
        <span class="price">{{ p.price | divided_by: 100.0 | round: 2 }}</span>
        {% if p.compare_at_price > p.price %}<s>{{ p.compare_at_price | divided_by: 100.0 }}</s>{% endif %}
        <span class="tags">{{ p.tags | join: ', ' | truncate: 40 }}</span>
      </li>{% endfor %}
    </ul>
    """
let productTemplate = try LiquidEnvironment().parse(productPage)
var products: [LiquidValue] = []
for i in 0..<100 {
    products.append(["handle": .string("product-\(i)"), "title": .string("Product <\(i)> & more"), "price": .int(1999 + i * 13),
                     "compare_at_price": .int(i % 3 == 0 ? 2999 + i : 0), "available": .bool(i % 7 != 0),
                     "tags": ["summer", "sale", .string("t\(i % 5)")]])
}
let pageData: LiquidValue = ["products": .array(products)]
var pageBytes = 0
try measure("product list page (100 items)", unit: "pages", operations: 100) {
    for _ in 0..<100 { pageBytes &+= try productTemplate.render(pageData).utf8.count }
}

// 5. Heap allocations per field render (malloc counter; needs LD_PRELOAD on Linux).
print("heap allocations per field render (W1, Braze, context 0; mean over 1,000 renders):")
let data0 = braze.contexts[0].value, options0 = braze.contexts[0].renderOptions()
MallocInterposerSwift.initialize()
for (i, template) in braze.templates.enumerated() {
    _ = try template.render(data0, options: options0)
    MallocInterposerSwift.reset()
    MallocInterposerSwift.hook()
    for _ in 0..<1000 { _ = try template.render(data0, options: options0) }
    MallocInterposerSwift.unhook()
    let stats = MallocInterposerSwift.getStatistics()
    let name = ["title", "body", "braze_id", "completed_session_count", "total_session_count", "next_session_name", "next_session_complete_date", "recent", "greeting"][min(i, 8)]
    print(String(format: "  %-28@ %6.1f mallocs", name as NSString, Double(stats.mallocCount) / 1000))
}

// 6. Peak memory of the batch command: 10,000 vs 100,000 lines.
@MainActor func peakRSS(lines count: Int) -> Int {
    let input = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(count).ndjson")
    try? generate(count).write(to: input, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: input) }
    let campaignFile = FileManager.default.temporaryDirectory.appendingPathComponent("bench-w1.json")
    try? campaignSpec.jsonString.write(to: campaignFile, atomically: true, encoding: .utf8)
    // GNU time reports the child's peak resident set (KiB) on its last line of stderr.
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
    p.arguments = ["-f", "%M", repo.appendingPathComponent(".build/release/pushliquid").path, "batch", campaignFile.path]
    p.standardInput = FileHandle(forReadingAtPath: input.path)
    p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    let err = Pipe()
    p.standardError = err
    p.environment = ProcessInfo.processInfo.environment.filter { $0.key != "LD_PRELOAD" }
    do { try p.run() } catch { fail("cannot run /usr/bin/time (Debian package 'time') and pushliquid: \(error)") }
    let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return Int(text.split(separator: "\n").last.map(String.init) ?? "") ?? -1
}
let small = peakRSS(lines: 10_000), large = peakRSS(lines: 100_000)
print("peak memory of pushliquid batch: \(small / 1024) MiB for 10,000 lines, \(large / 1024) MiB for 100,000 lines")
print("checksums: \(outBytes) \(pageBytes)")
