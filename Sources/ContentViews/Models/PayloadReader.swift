import Foundation
import Liquid

/// One key of a payload that is missing or not what a content view needs.
public struct KeyProblem: Sendable, Equatable, CustomStringConvertible {
    /// The key.
    public var key: String
    /// What was expected (`an integer (as a string or number)`).
    public var expected: String
    /// What was there (`missing`, `"six"`).
    public var found: String

    public var description: String { "'\(key)': expected \(expected), found \(found)" }
}

/// A payload a content view cannot use: every bad key is named.
public struct ContentViewError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The content view being built.
    public var view: String
    /// Every problem found.
    public var problems: [KeyProblem]

    public var description: String {
        "cannot show the \(view) view: " + problems.map(\.description).joined(separator: "; ")
    }
}

/// Reads typed key-value pairs out of a notification's `userInfo` (the top-level APNs
/// dictionary), collecting every problem instead of stopping (or crashing) at the first.
public struct PayloadReader {
    /// The payload.
    public let userInfo: LiquidValue
    /// Problems so far.
    public internal(set) var problems: [KeyProblem] = []

    /// A reader over a payload's JSON.
    public init(userInfo: LiquidValue) { self.userInfo = userInfo }

    /// A reader over a `userInfo` dictionary as iOS delivers it. Values nested deeper than
    /// `JSONValueParser.maxDepth` are read as `nil` (no content view reads below the top level).
    public init(userInfo: [AnyHashable: Any]) { self.userInfo = Self.convert(userInfo, depth: 0) }

    static func convert(_ any: Any, depth: Int) -> LiquidValue {
        switch any {
        case let s as String: return .string(s)
        case let b as Bool: return .bool(b)
        case let i as Int: return .int(i)
        case let d as Double: return .double(d)
        case let n as NSNumber: return .double(n.doubleValue)
        case let a as [Any]:
            guard depth < JSONValueParser.maxDepth else { return .nil }
            return .array(a.map { convert($0, depth: depth + 1) })
        case let d as [AnyHashable: Any]:
            guard depth < JSONValueParser.maxDepth else { return .nil }
            var o = LiquidObject()
            for (k, v) in d.sorted(by: { "\($0.key)" < "\($1.key)" }) { o["\(k.base)"] = convert(v, depth: depth + 1) }
            return .object(o)
        default: return .nil
        }
    }

    func raw(_ key: String) -> LiquidValue? {
        guard case .object(let o) = userInfo, let v = o[key], !v.isNil else { return nil }
        return v
    }

    static func describe(_ v: LiquidValue?) -> String { v.map(\.jsonString) ?? "missing" }

    mutating func problem(_ key: String, _ expected: String) {
        problems.append(KeyProblem(key: key, expected: expected, found: Self.describe(raw(key))))
    }

    /// A required string.
    public mutating func string(_ key: String) -> String? {
        guard case .string(let s)? = raw(key) else { problem(key, "a string"); return nil }
        return s
    }

    /// An optional string (an empty string counts as absent).
    public mutating func optionalString(_ key: String) -> String? {
        guard let v = raw(key) else { return nil }
        guard case .string(let s) = v else { problem(key, "a string"); return nil }
        return s.isEmpty ? nil : s
    }

    /// A required integer; payload values are strings on Android, so "4" counts.
    public mutating func int(_ key: String) -> Int? {
        switch raw(key) {
        case .int(let i)?: return i
        case .string(let s)?: if let i = Int(s.trimmingCharacters(in: .whitespaces)) { return i }
        default: break
        }
        problem(key, "an integer (as a number or a string)")
        return nil
    }

    /// An optional integer with a default.
    public mutating func int(_ key: String, default value: Int) -> Int? {
        raw(key) == nil || raw(key) == .string("") ? value : int(key)
    }

    /// Throws when any problem was found.
    public func finish(_ view: String) throws {
        if !problems.isEmpty { throw ContentViewError(view: view, problems: problems) }
    }
}
