import Liquid
import Testing

/// One template, many tasks, the same output (after liquid-rust's `multithreading.rs`).
@Suite struct ConcurrencyTests {
    @Test func oneTemplateRendersFromManyTasks() async throws {
        let template = try LiquidEnvironment().parse(
            "{% for i in (1..n) %}{% cycle 'a', 'b' %}{% increment c %}{{ forloop.index | times: k }}{% endfor %}{{ name | upcase }}")
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for k in 0..<64 {
                group.addTask {
                    (k, try template.render(["n": 5, "k": .int(k), "name": .string("user\(k)")]))
                }
            }
            var out: [(Int, String)] = []
            for try await r in group { out.append(r) }
            return out
        }
        #expect(results.count == 64)
        for (k, text) in results {
            let expected = (1...5).map { i in "\(i % 2 == 1 ? "a" : "b")\(i - 1)\(i * k)" }.joined() + "USER\(k)"
            #expect(text == expected)
        }
    }
}
