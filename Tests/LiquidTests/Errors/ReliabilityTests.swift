import Foundation
import Liquid
import LiquidTestSupport
import Testing

/// Renders `source` with data read from JSON text (as a send pipeline gets it).
private func render(_ source: String, json: String, limits: LiquidLimits = LiquidLimits()) throws -> String {
    let data = try JSONValueParser.parse(json)
    return try LiquidEnvironment(limits: limits).parse(source).render(data)
}

/// The reason of the error `body` throws (parse or render), or `nil`.
private func reason(_ body: () throws -> Any) -> LiquidError.Reason? {
    liquidError { _ = try body() }?.reason
}

/// `true` when `reason` is ``LiquidError/Reason/numberOutOfRange(_:)``.
private func isOutOfRange(_ reason: LiquidError.Reason?) -> Bool {
    if case .numberOutOfRange? = reason { return true }
    return false
}

/// Data a send pipeline renders without checking it: each of these once killed the process
/// (a Swift trap). Where Ruby Liquid has an answer it is given (the dates are Ruby's own);
/// where it would need a bignum, the documented approximation or a clear error.
@Suite struct DataTrapTests {
    @Test(arguments: [
        (#""\ud800\u0041""#, "\u{FFFD}A"),  // a high surrogate, then not a low one
        (#""\ud83d\ude00""#, "😀"),  // a proper pair
        (#""\udc00x""#, "\u{FFFD}x"),  // a low surrogate alone
        (#""\ud800""#, "\u{FFFD}"),  // a high surrogate at the end
        (#""\ud800\\u0041""#, "\u{FFFD}\\u0041"),  // an escaped backslash is not an escape
    ])
    func loneSurrogatesInJSONBecomeReplacementCharacters(_ json: String, _ expected: String) throws {
        #expect(try render("{{ x }}", json: #"{"x": \#(json)}"#) == expected)
    }

    @Test func datesAtTheEndsOf64BitsAreRubys() throws {
        let format = "{{ x | date: '%Y-%m-%d %H:%M:%S %a %j' }}"
        #expect(try render(format, json: #"{"x": 9223372036854775807}"#) == "292277026596-12-04 15:30:07 Sun 339")
        #expect(try render(format, json: #"{"x": -9223372036854775808}"#) == "-292277022657-01-27 08:29:52 Sun 027")
        #expect(try render(format, json: #"{"x": "9223372036854775807"}"#) == "292277026596-12-04 15:30:07 Sun 339")
    }

    @Test func digitStringsPast64BitsAreNoDate() throws {
        // Ruby would show year 3168873852651; past 64 bits of seconds the input is returned, as
        // for any text that is not a date.
        #expect(try render("{{ x | date: '%Y' }}", json: #"{"x": "99999999999999999999"}"#) == "99999999999999999999")
        #expect(try render("{{ x | date: '%Y' }}", json: #"{"x": "1999999999-01-01"}"#) == "1999999999-01-01")
    }

    @Test(arguments: [
        "{% for i in (1..x) %}{% endfor %}",
        "{% for i in a limit: x %}{% endfor %}",
        "{% for i in a offset: x %}{% endfor %}",
        "{% tablerow i in a cols: x %}{% endtablerow %}",
        "{{ 1.5 | round: x }}",
    ])
    func floatsTooLargeForAnIntegerAreOutOfRange(_ template: String) throws {
        for x in ["1e30", "-1e30", "1e300"] {
            #expect(isOutOfRange(reason { try render(template, json: #"{"x": \#(x), "a": [1]}"#) }), "\(template) with \(x)")
        }
    }

    @Test func indexesTooLargeAreNoElement() throws {
        #expect(try render("[{{ a[x] }}]", json: #"{"x": 1e30, "a": [1]}"#) == "[]")
        #expect(try render("[{{ a[x] }}]", json: #"{"x": -1e300, "a": [1]}"#) == "[]")
    }

    @Test func countersPast64BitsGoOnExactly() throws {
        #expect(try render("{% increment x %} {% increment x %} {% increment x %}", json: #"{"x": 9223372036854775807}"#)
            == "9223372036854775807 9223372036854775808 9223372036854775809")
        #expect(try render("{% decrement x %}", json: #"{"x": -9223372036854775808}"#) == "-9223372036854775809")
    }

    @Test func floatsBeyondADecimalKeepTheirMagnitude() throws {
        let x = #"{"x": 1e300, "i": 9223372036854775807}"#
        #expect(try render("{{ x | plus: 1 }}|{{ x | times: 10 }}|{{ x | divided_by: 3 }}", json: x)
            == "1.0e+300|1.0e+301|3.3333333333333335e+299")
        // To a whole number, Ruby's integer of the float's digits (BigDecimal's): 1 and 300 zeros.
        let whole = "1" + String(repeating: "0", count: 300)
        #expect(try render("{{ x | round }}|{{ x | ceil }}|{{ x | floor }}|{{ x | abs }}|{{ x | round: 2 }}", json: x)
            == "\(whole)|\(whole)|\(whole)|1.0e+300|1.0e+300")
        #expect(try render("{{ i | plus: i }}|{{ i | times: i }}", json: x) == "18446744073709551614|85070591730234615847396907784232501249")
    }
}

/// Template literals and arguments that once trapped.
@Suite struct TemplateTrapTests {
    @Test func hugeLiteralsAndArguments() throws {
        #expect(isOutOfRange(reason { try render("{{ (1..99999999999999999999) }}") }))
        // An offset past 64 bits (a bignum) is past every collection.
        #expect(try render("{% for i in a offset: 9999999999999999999 %}{{ i }}{% endfor %}", ["a": [1]]) == "")
        #expect(try render("{{ 'abc' | truncate: -9223372036854775808 }}") == "...")
        #expect(try render("{{ 'abcdef' | slice: 2, 9223372036854775807 }}") == "cdef")
        #expect(try render("{{ 'abcdef' | slice: -9223372036854775808, 2 }}") == "")
        #expect(try render("{{ a | slice: 1, 9223372036854775807 | join: ',' }}", ["a": [1, 2, 3]]) == "2,3")
        #expect(try render("{{ (a..b) | size }}", ["a": .int(Int.min), "b": .int(Int.max)]) == "9223372036854775807")
        #expect(try render("{{ r.size }}", ["r": .range(Int.min, Int.max)]) == "9223372036854775807")
    }

    @Test(arguments: ["%99999999999999999999d", "%99999999999d", "%1001d", "%-1000000000Y"])
    func strftimeWidthsAreLimited(_ format: String) throws {
        #expect(reason { try render("{{ 0 | date: '\(format)' }}") } == .limitExceeded(.strftimeWidth(1_000)))
    }

    @Test func strftimeResultsAreLimited() throws {
        #expect(try render("{{ 0 | date: '%1000d' | size }}") == "1000")
        let many = String(repeating: "%1000d", count: 2_000)  // 2 MB of output from 12 KB of format
        #expect(reason { try render("{{ 0 | date: f }}", ["f": .string(many)]) } == .limitExceeded(.stringBytes(1_000_000)))
    }

    @Test func longPathsAreLimitedAtParseTime() throws {
        let dotted = "{{ a" + String(repeating: ".b", count: 100_000) + " }}"
        #expect(reason { try LiquidEnvironment().parse(dotted) } == .limitExceeded(.nestingDepth(100)))
        let ok = "{{ a" + String(repeating: ".b", count: 100) + " }}"
        #expect(try render(ok) == "")
    }
}

/// Every limit of ``LiquidLimits``: what reaches it, and its reason.
@Suite struct ResourceLimitTests {
    func env(_ limits: LiquidLimits = LiquidLimits()) -> LiquidEnvironment { LiquidEnvironment(limits: limits) }

    @Test func doublingAStringStopsAtTheStringLimit() throws {
        let t = try env().parse("{% assign a = 'ab' %}{% for i in (1..40) %}{% assign a = a | append: a %}{% endfor %}")
        #expect(reason { try t.render() } == .limitExceeded(.stringBytes(1_000_000)))
        let small = try env(LiquidLimits(stringBytes: 1_000)).parse("{% capture c %}{% for i in (1..600) %}ab{% endfor %}{% endcapture %}")
        #expect(reason { try small.render() } == .limitExceeded(.stringBytes(1_000)))
    }

    @Test func doublingAnArrayStopsAtTheArrayLimit() throws {
        let t = try env().parse("{% assign a = 'a,b' | split: ',' %}{% for i in (1..40) %}{% assign a = a | concat: a %}{% endfor %}")
        #expect(reason { try t.render() } == .limitExceeded(.arrayElements(100_000)))
        // Found while splitting, not after making every part.
        let split = try env(LiquidLimits(arrayElements: 10)).parse("{{ s | split: '' | size }}")
        #expect(reason { try split.render(["s": .string(String(repeating: "x", count: 1_000))]) } == .limitExceeded(.arrayElements(10)))
        // Nested arrays flatten into more items than they hold.
        let nested = LiquidValue.array(Array(repeating: .array(Array(repeating: 1, count: 1_000)), count: 1_000))
        #expect(reason { try env().parse("{{ a | join }}").render(["a": nested]) } == .limitExceeded(.arrayElements(100_000)))
    }

    @Test func appendingInALoopStopsAtTheAssignScore() throws {
        let fifty = String(repeating: "x", count: 50)
        let t = try env().parse("{% assign a = '' %}{% for i in (1..200000) %}{% assign a = a | append: '\(fifty)' %}{% endfor %}")
        // (The reason says it stopped after about 2,000 appends, not 200,000.)
        #expect(reason { try t.render() } == .limitExceeded(.assignScore(100_000_000)))
    }

    @Test func replaceThatMultipliesIsRefusedBeforeItIsBuilt() throws {
        let t = try env().parse("{{ s | replace: 'a', r }}")
        let data: LiquidValue = ["s": .string(String(repeating: "a", count: 10_000)), "r": .string(String(repeating: "b", count: 1_000))]
        #expect(reason { try t.render(data) } == .limitExceeded(.stringBytes(1_000_000)))
        let everywhere = try env().parse("{{ s | replace: '', r }}")
        #expect(reason { try everywhere.render(data) } == .limitExceeded(.stringBytes(1_000_000)))
        #expect(try env().parse("{{ 'abc' | replace: '', '-' }}").render() == "-a-b-c-")
    }

    @Test func arraysOfOneLongStringAreWrittenPieceByPiece() throws {
        // A short array of one long string: its text is far larger than its memory.
        let long = LiquidValue.string(String(repeating: "x", count: 900_000))
        let data: LiquidValue = ["a": .array(Array(repeating: long, count: 50_000))]
        #expect(reason { try env().parse("{{ a | join }}").render(data) } == .limitExceeded(.stringBytes(1_000_000)))
        #expect(reason { try env().parse("{{ a }}").render(data) } == .limitExceeded(.outputBytes(10_000_000)))
        #expect(reason { try env().parse("{{ 'x' | append: a }}").render(data) } == .limitExceeded(.stringBytes(1_000_000)))
    }

    @Test func everyDefaultIsDocumentedAndSafe() {
        let d = LiquidLimits()
        #expect(d.outputBytes == 10_000_000 && d.renderSteps == 1_000_000 && d.nestingDepth == 100 && d.renderDepth == 200)
        #expect(d.partialDepth == 50 && d.stringBytes == 1_000_000 && d.arrayElements == 100_000 && d.assignScore == 100_000_000)
        #expect(d.renderSeconds == 5 && d.externalRequests == 10 && d.strftimeWidth == 1_000)
    }

    /// A filter that waits, standing in for slow work inside one step.
    static let slow = LiquidFilter("slow") { input, _, _ in
        Thread.sleep(forTimeInterval: 0.002)
        return input
    }

    @Test func timeLimitEndsALongRender() throws {
        var e = env(LiquidLimits(renderSeconds: 0.2))
        e.register(Self.slow)
        // 100,000 calls of 2 ms would take 200 s: the limit's reason says it ended the render.
        let t = try e.parse("{% for i in (1..100000) %}{{ i | slow }}{% endfor %}")
        #expect(reason { try t.render() } == .limitExceeded(.renderSeconds(0.2)))
    }

    @Test func timeLimitCoversAWholeSession() throws {
        var e = env(LiquidLimits(renderSeconds: 0.3))
        e.register(Self.slow)
        // Each field alone stays within the limit; together they do not.
        let field = try e.parse("{% for i in (1..300) %}{{ i | slow }}{% endfor %}")
        let failed = LiquidTemplate.withSession([:]) { session -> LiquidError.Reason? in
            for _ in 0..<10 {
                if let r = reason({ try session.render(field) }) { return r }
            }
            return nil
        }
        #expect(failed == .limitExceeded(.renderSeconds(0.3)))
    }

    /// A tag that asks for the outside world, as Connected Content does.
    struct CallTag: LiquidTag {
        let name = "call"
        struct Node: LiquidNode {
            func render(_ context: RenderContext) throws {
                let left = try context.beginExternalRequest()
                context.write(left > 0 ? "." : "!")
            }
        }
        func parse(_ tag: TagToken, parser: LiquidParser) throws -> any LiquidNode { Node() }
    }

    @Test func externalRequestsAreCountedPerRender() throws {
        var e = env()
        e.register(CallTag())
        #expect(try e.parse(String(repeating: "{% call %}", count: 10)).render() == "..........")
        #expect(reason { try e.parse(String(repeating: "{% call %}", count: 11)).render() } == .limitExceeded(.externalRequests(10)))
    }

    @Test func includeTreesStopAtTheStepLimitQuickly() throws {
        // Each partial includes the next twice: 2^30 renders without limits.
        var partials: [String: String] = [:]
        for i in 0..<30 { partials["p\(i)"] = "x{% include 'p\(i + 1)' %}{% include 'p\(i + 1)' %}" }
        partials["p30"] = "y"
        // (No time limit here: the step limit must end it, however slow the machine.)
        let t = try LiquidEnvironment(fileSystem: InMemoryFileSystem(partials), limits: LiquidLimits(renderSeconds: 3_600)).parse("{% include 'p0' %}")
        #expect(reason { try t.render() } == .limitExceeded(.renderSteps(1_000_000)))
        // A self-including partial stops at the partial depth at once.
        let selfIncluding = try LiquidEnvironment(fileSystem: InMemoryFileSystem(["t": "{% include 't' %}"])).parse("{% include 't' %}")
        #expect(reason { try selfIncluding.render() } == .limitExceeded(.partialDepth(50)))
    }
}

/// Deep input: nothing in a template or its data may exhaust the stack, even on a thread with
/// a small one (the batch's workers, a server's request threads).
@Suite struct DeepInputTests {
    /// What a thread hands back.
    final class Box<T>: @unchecked Sendable {
        var value: T?
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `body` on a thread with a stack of `size` bytes (512 KB, as a secondary thread
    /// on Apple platforms has) and returns what it returned.
    func onThread<T: Sendable>(stack size: Int = 512 << 10, _ body: @escaping @Sendable () -> T) -> T {
        let box = Box<T>()
        let thread = Thread {
            box.value = body()
            box.done.signal()
        }
        thread.stackSize = size
        thread.start()
        box.done.wait()
        return box.value!
    }

    @Test func deeplyNestedJSONIsAnError() {
        for open in ["[", "{\"a\":"] {
            let text = String(repeating: open, count: 100_000)
            let failed = onThread { (try? JSONValueParser.parse(text)) == nil }
            #expect(failed)
        }
        let deepest = String(repeating: "[", count: JSONValueParser.maxDepth) + String(repeating: "]", count: JSONValueParser.maxDepth)
        #expect(onThread { (try? JSONValueParser.parse(deepest)) != nil })
        let deeper = "[" + deepest + "]"
        #expect(onThread { (try? JSONValueParser.parse(deeper)) == nil })
    }

    /// Each partial nests blocks 50 deep and then includes the next: within the nesting limit
    /// of every template, but far past what a stack holds.
    static let nestedPartial = String(repeating: "{% if true %}", count: 50) + "{% include 'p' %}" + String(repeating: "{% endif %}", count: 50)

    @Test func partialsNestedThroughEachOtherStopAtTheRenderDepth() {
        for stack in [512 << 10, 8 << 20] {
            let r = onThread(stack: stack) { () -> LiquidError.Reason? in
                let t = try? LiquidEnvironment(fileSystem: InMemoryFileSystem(["p": Self.nestedPartial])).parse("{% include 'p' %}")
                return liquidError { _ = try t?.render() }?.reason
            }
            #expect(r == .limitExceeded(.renderDepth(200)), "stack of \(stack) bytes")
        }
    }

    /// The stack guard stops what the counted limits allow when a thread's stack is too small
    /// for it (a debug build's frames are several times a release build's).
    @Test func deepTemplatesOnTinyStacksFailCleanly() {
        let deep = String(repeating: "{% if true %}", count: 99) + "{{ a[a[a[a[0]]]] }}" + String(repeating: "{% endif %}", count: 99)
        for stack in [64 << 10, 192 << 10, 512 << 10] {
            let r = onThread(stack: stack) { () -> String in
                do {
                    let t = try LiquidEnvironment(fileSystem: InMemoryFileSystem(["p": Self.nestedPartial])).parse(deep + "{% include 'p' %}")
                    return try t.render(["a": [0]])
                } catch let e as LiquidError {
                    return "\(e.reason)"
                } catch {
                    return "\(error)"
                }
            }
            #expect(r.hasPrefix("limitExceeded"), "stack of \(stack) bytes: \(r)")
        }
    }

    @Test func theDeepestRenderThatIsAllowedRenders() {
        let nest = String(repeating: "{% for i in (1..1) %}{% if true %}", count: 49) + "{{ i }}" + String(repeating: "{% endif %}{% endfor %}", count: 49)
        let out = onThread(stack: 8 << 20) { () -> String? in
            let fs = InMemoryFileSystem(["a": nest, "b": "{% include 'a' %}"])
            return try? LiquidEnvironment(fileSystem: fs).parse("{% include 'b' %}{% include 'a' %}").render()
        }
        #expect(out == "11")
    }
}

extension ResourceLimitTests {
    @Test func timeLimitEndsOneOutputOfManySlowFilters() throws {
        var e = env(LiquidLimits(renderSeconds: 0.2))
        e.register(Self.slow)
        // One node, one step: the limit is checked between filter calls too.
        // 2,000 calls of 2 ms would take 4 s, all within one step.
        let t = try e.parse("{{ 1" + String(repeating: " | slow", count: 2_000) + " }}")
        #expect(reason { try t.render() } == .limitExceeded(.renderSeconds(0.2)))
    }
}
