import Crypto
import Foundation
import Liquid

/// Braze's filters beyond standard Liquid.
enum BrazeFilters {
    static let all: [LiquidFilter] = [
        TimeZoneFilter.filter,
        LiquidFilter("json_escape") { input, _, context in
            var text = LiquidValue.string(try context.renderedText(input)).jsonString
            text.removeFirst()
            text.removeLast()
            return .string(text)
        },
        LiquidFilter("json_parse") { input, _, context in
            do { return try JSONValueParser.parse(try context.renderedText(input)) } catch let e as JSONValueParser.SyntaxError {
                throw LiquidError.Reason.argument("json_parse: invalid JSON at \(e.line):\(e.column): \(e.message)")
            }
        },
        LiquidFilter("as_json_string") { input, _, context in .string(try context.jsonText(input)) },
        LiquidFilter("url_escape") { input, _, context in .string(percentEncode(try context.renderedText(input), keeping: urlSafeBytes)) },
        LiquidFilter("url_param_escape") { input, _, context in .string(percentEncode(try context.renderedText(input), keeping: unreservedURLByteSet)) },
        LiquidFilter("number_with_delimiter", arguments: 0...1) { input, args, context in
            .string(try numberWithDelimiter(input, delimiter: args.has(0) ? try context.renderedText(args[0]) : ",", context: context))
        },
        LiquidFilter("money") { input, _, context in .string(try money(input, context: context)) },
        // Braze's array filter list has `index`: the element at a position (negative from the end).
        LiquidFilter("index", arguments: 1...1) { input, args, _ in
            guard case .array(let a) = input else { return .nil }
            let i: Int
            switch args[0] {
            case .int(let n): i = n
            case .string(let t): guard let n = Int(t.trimmingCharacters(in: .whitespaces)) else { return .nil }; i = n
            default: return .nil
            }
            let k = i < 0 ? a.count + i : i
            return k >= 0 && k < a.count ? a[k] : .nil
        },
        LiquidFilter("property_accessor", arguments: 1...1) { input, args, context in
            switch input {
            case .object(let o): return o[try context.renderedText(args[0])] ?? .nil
            case .drop(let d): return d.drop.liquidProperty(try context.renderedText(args[0])) ?? .nil
            default: return .nil
            }
        },
        digest("md5") { Data(Insecure.MD5.hash(data: $0)) },
        digest("sha1") { Data(Insecure.SHA1.hash(data: $0)) },
        digest("sha2") { Data(SHA256.hash(data: $0)) },
        hmac("hmac_sha1_hex", Insecure.SHA1.self, base64: false),
        hmac("hmac_sha1", Insecure.SHA1.self, base64: false),
        hmac("hmac_sha1_base64", Insecure.SHA1.self, base64: true),
        hmac("hmac_sha256_hex", SHA256.self, base64: false),
        hmac("hmac_sha256", SHA256.self, base64: false),
        hmac("hmac_sha256_base64", SHA256.self, base64: true),
        hmac("hmac_sha512", SHA512.self, base64: false),
    ]

    static func digest(_ name: String, _ hash: @escaping @Sendable (Data) -> Data) -> LiquidFilter {
        LiquidFilter(name) { input, _, context in .string(hex(hash(Data(try context.renderedText(input).utf8)))) }
    }

    static func hmac<H: HashFunction & SendableMetatype>(_ name: String, _: H.Type, base64: Bool) -> LiquidFilter {
        LiquidFilter(name, arguments: 1...1) { input, args, context in
            let key = SymmetricKey(data: Data(try context.renderedText(args[0]).utf8))
            let mac = Data(HMAC<H>.authenticationCode(for: Data(try context.renderedText(input).utf8), using: key))
            return .string(base64 ? mac.base64EncodedString() : hex(mac))
        }
    }

    /// `false` when the first character after spaces and tabs is ASCII and cannot start a
    /// number (a digit, a sign or a point): no number to `Double` or `Decimal` either. (A
    /// non-ASCII one, such as a no-break space the trimming removes, is left to them.)
    static func startsLikeNumber(_ s: String) -> Bool {
        for b in s.utf8 {
            if b == 0x20 || b == 0x09 { continue }
            return b >= 0x80 || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
        }
        return false
    }

    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(data.count * 2)
        for b in data {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Characters `url_escape` keeps: those allowed somewhere in a URL (Ruby's `URI.escape`).
    static let urlSafeBytes = ByteSet(urlSafe)
    static let urlSafe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!~*'();/?:@&=+$,[]#".utf8)
    /// Rails' `number_with_delimiter`: `1234567.891` → `1,234,567.891`; non-numbers unchanged.
    static func numberWithDelimiter(_ input: LiquidValue, delimiter: String, context: RenderContext) throws -> String {
        let text: String
        switch input {
        case .int(let i): text = String(i)
        case .bigInt(let b): text = b.description
        case .double(let d): text = rubyFloatString(d)
        case .string(let s):
            // Text that does not start like a number is returned as is, without parsing it.
            guard startsLikeNumber(s) else { return s }
            let t = s.trimmingCharacters(in: .whitespaces)
            guard Double(t) != nil, !t.lowercased().contains("e"), !t.contains("n") else { return s }
            text = t
        default: return try context.renderedText(input)
        }
        var sign = ""
        var body = Substring(text)
        if body.first == "-" || body.first == "+" { sign = String(body.removeFirst()) }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let intPart = Array(parts[0])
        var grouped = ""
        for (i, ch) in intPart.enumerated() {
            if i > 0 && (intPart.count - i) % 3 == 0 { grouped += delimiter }
            grouped.append(ch)
        }
        return sign + grouped + (parts.count > 1 ? "." + parts[1] : "")
    }

    /// Braze's `money`: the number with two decimals (`17.8` → `17.80`, `145` → `145.00`),
    /// no currency symbol and no scaling.
    static func money(_ input: LiquidValue, context: RenderContext) throws -> String {
        let decimal: Decimal
        switch input {
        case .int(let i): decimal = Decimal(i)
        case .bigInt(let b): decimal = Decimal(string: b.description) ?? 0
        case .double(let d):
            guard let exact = Decimal(string: rubyFloatString(d)), !exact.isNaN else {
                // Beyond a decimal's range (or not finite): two decimals of the float itself.
                return d.isFinite ? String(format: "%.2f", d) : rubyFloatString(d)
            }
            decimal = exact
        case .string(let s):
            guard startsLikeNumber(s), let d = Decimal(string: s.trimmingCharacters(in: .whitespaces)), !d.isNaN else { return s }
            decimal = d
        default: return try context.renderedText(input)
        }
        var value = decimal
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 2, .plain)
        let negative = rounded < 0
        let magnitude = negative ? -rounded : rounded
        var cents = Decimal()
        var scaled = magnitude * 100
        NSDecimalRound(&cents, &scaled, 0, .plain)
        let text = cents.description
        let digits = String(repeating: "0", count: max(0, 3 - text.count)) + text
        return (negative ? "-" : "") + digits.dropLast(2) + "." + digits.suffix(2)
    }
}
