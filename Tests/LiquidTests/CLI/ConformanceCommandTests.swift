import Foundation
import LiquidTestSupport
import Testing

/// Runs the built `pushliquid` binary.
func runPushliquid(_ arguments: [String], stdin: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    try BuiltProducts.run(TestPaths.pushliquidBinary, arguments, in: TestPaths.repositoryRoot, stdin: stdin)
}

@Suite struct ConformanceCommandTests {
    @Test func printsFailuresAndSummary() throws {
        let suite = #"""
            {"tests": [
              {"name": "ok", "template": "{{ 'a' | upcase }}", "result": "A"},
              {"name": "bad", "template": "{{ 1 | plus: 1 }}", "result": "3"},
              {"name": "must fail", "template": "{% nosuch %}", "invalid": true},
              {"name": "partials", "template": "{% render 'p', x: 1 %}", "templates": {"p": "{{ x }}"}, "result": "1"}
            ]}
            """#
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("suite-\(UUID().uuidString).json")
        try suite.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runPushliquid(["conformance", file.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL bad"))
        #expect(result.stdout.contains(#"expected: "3""#) && result.stdout.contains(#"actual:   "2""#))
        #expect(result.stdout.hasSuffix("3 passed, 1 failed\n"))
    }

    @Test func missingFileIsAUsageError() throws {
        let result = try runPushliquid(["conformance", "/nonexistent/suite.json"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("/nonexistent/suite.json"))
    }
}
