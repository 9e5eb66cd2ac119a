import Liquid
import LiquidTestSupport
import Testing

/// Integers past 64 bits, as Ruby's bignums: exact, and bounded.
@Suite struct BigIntTests {
    @Test func decimalRoundTrip() throws {
        for text in ["0", "1", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                     "340282366920938463463374607431768211456", "-" + String(repeating: "9", count: 300)] {
            #expect(BigInt(text)?.description == text)
        }
        #expect(BigInt("12a") == nil)
        #expect(BigInt("") == nil)
        #expect(BigInt(String(repeating: "9", count: 2_000)) == nil, "past maxBits")
        #expect(BigInt("+42")?.description == "42")
    }

    @Test func arithmetic() throws {
        let big = try #require(BigInt("18446744073709551616"))  // 2^64
        #expect(try BigInt.adding(big, BigInt(-1)).description == "18446744073709551615")
        #expect(try BigInt.multiplying(big, big).description == "340282366920938463463374607431768211456")
        #expect(try BigInt.subtracting(BigInt(0), big).description == "-18446744073709551616")
        let (q, r) = try #require(BigInt.flooredDivision(-big, BigInt(7)))
        #expect(q.description == "-2635249153387078803" && r.description == "5", "floored, as Ruby's divmod")
        #expect(BigInt.flooredDivision(big, BigInt(0)) == nil)
        #expect(BigInt(exactly: 1e20)?.description == "100000000000000000000")
        #expect(BigInt(exactly: 1.5) == nil)
        #expect(big.double == 18446744073709551616.0)
    }

    @Test func growthIsBounded() throws {
        // 2^4000 squared is past BigInt.maxBits: an error, never a number that grows without end.
        // 2^2048 is exact (617 digits); 2^4096 takes 4097 bits.
        let exact = try render("{% assign x = 2 %}{% for i in (1..11) %}{% assign x = x | times: x %}{% endfor %}{{ x }}")
        #expect(exact.count == 617 && exact.hasPrefix("3231700607131100730") && exact.hasSuffix("6230656"))
        let error = liquidError { try render("{% assign x = 2 %}{% for i in (1..12) %}{% assign x = x | times: x %}{% endfor %}{{ x }}") }
        #expect(error?.reason == .numberOutOfRange("an integer of more than 4096 bits"))
    }

    @Test func valuesPrintAndCompareExactly() throws {
        #expect(try render("{{ 9223372036854775807 | plus: 1 }}") == "9223372036854775808")
        #expect(try render("{{ n | minus: 1 }}", ["n": .bigInt(BigInt("9223372036854775808")!)]) == "9223372036854775807")
        #expect(try render("{% if n > 9223372036854775807 %}gt{% endif %}", ["n": .bigInt(BigInt("9223372036854775808")!)]) == "gt")
        #expect(try JSONValueParser.parse("[18446744073709551616]") == .array([.bigInt(BigInt("18446744073709551616")!)]))
        #expect(LiquidValue.normalizing(BigInt(5)) == .int(5), "a value that fits is always .int")
    }
}
