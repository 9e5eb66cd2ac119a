import CFuzzerDriver
import Foundation
import Liquid
import Personalization
import PushPayload

/// Runs libFuzzer with `argc`/`argv` (its options and corpus folders), calling `body` with each
/// input. SwiftPM links an executable's entry point as `<module>_main`; each target defines that
/// with `@_cdecl` and calls this.
public func runFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                      _ body: @escaping @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
    var argc = argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&argc, &argv, body)
}

/// The bytes of one input.
public func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Limits small enough that an input that loops or grows is cut short quickly (each limit is
/// what the fuzzer checks, not what it waits for), and a fixed clock.
public let fuzzLimits = LiquidLimits(outputBytes: 20_000, renderSteps: 2_000, stringBytes: 10_000, arrayElements: 1_000,
                                     assignScore: 100_000, renderSeconds: 2)
public let fuzzOptions = RenderOptions(now: { Date(timeIntervalSince1970: 1_704_067_318) })

/// The repository root (the fuzz package is its `Fuzz/` folder).
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// Partials, content blocks and Connected Content answers the fuzzed templates may reach.
public let fuzzPartials = InMemoryFileSystem([
    "product": "{{ product.title | upcase }}{% if product.price > 10 %} ({{ product.price | money }}){% endif %}",
    "loop": "{% for i in (1..3) %}{% include 'product' %}{% endfor %}",
    "self": "{% include 'self' %}",
])

public let fuzzBraze = BrazeDialect(
    contentBlocks: InMemoryContentBlocks(["signature": "— {{${first_name} | default: 'the team'}}", "nested": "{{content_blocks.${nested}}}"]),
    connectedContent: ConnectedContentConfiguration(
        client: FixtureConnectedContentClient(responses: [
            "https://api.example.com/a": ConnectedContentResponse(status: 200, body: Data(#"{"x": [1, 2, {"y": "z"}]}"#.utf8)),
            "https://api.example.com/t": ConnectedContentResponse(status: 200, body: Data("text".utf8), contentType: "text/plain"),
            "https://api.example.com/e": ConnectedContentResponse(status: 500, body: Data()),
        ]),
        retryDelay: 0),
    catalogs: InMemoryCatalogs([try! Catalog(csv: "id,title,price,pitch\n1,Tales,7.49,\"Hi {{${first_name}}}\"\n2,Loop,1,{% catalog_items games 1 %}\n", name: "games", file: "games.csv")]),
    promotionCodes: FuzzPromotionCodes())

/// Promotion codes in memory (a fuzzed render never writes files): ten codes, then none.
public final class FuzzPromotionCodes: PromotionCodeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var given: [String: String] = [:]
    private var next = 0
    public init() {}
    public func code(for assignment: PromotionCodeAssignment) throws -> String? {
        guard assignment.list == "spring" else { throw PromotionCodeError.listNotFound("no list '\(assignment.list)'") }
        lock.lock(); defer { lock.unlock() }
        if let key = assignment.key, let code = given[key] { return code }
        guard next < 10 else { return nil }
        next += 1
        if let key = assignment.key { given[key] = "CODE\(next)" }
        return "CODE\(next)"
    }
    public func sync() throws {}
}
