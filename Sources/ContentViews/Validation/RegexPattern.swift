import CPCRE2
import Foundation

/// A PCRE2 regular expression, compiled once and matched with limits, so that a hostile
/// pattern from a payload cannot hang the extension: the match and depth limits turn
/// catastrophic backtracking into an error.
public final class RegexPattern: @unchecked Sendable {
    /// Why a pattern could not be used.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The pattern does not compile; `offset` is in bytes.
        case invalidPattern(message: String, offset: Int)
        /// Matching gave up at the match or depth limit.
        case limitExceeded
        /// Another PCRE2 error code.
        case matchError(Int32)

        public var description: String {
            switch self {
            case .invalidPattern(let m, let o): return "invalid pattern at byte \(o): \(m)"
            case .limitExceeded: return "pattern gave up at its match limit"
            case .matchError(let c): return "PCRE2 match error \(c)"
            }
        }
    }

    /// The pattern's source.
    public let source: String
    private let code: OpaquePointer
    private let matchContext: OpaquePointer?
    private let lock = NSLock()

    /// Compiles `pattern` (UTF-8, Unicode properties) with match and depth limits.
    public init(_ pattern: String, matchLimit: UInt32 = 100_000, depthLimit: UInt32 = 1_000) throws {
        source = pattern
        var errorCode: Int32 = 0
        var errorOffset: Int = 0
        let bytes = Array(pattern.utf8)
        let compiled: OpaquePointer? = bytes.withUnsafeBufferPointer { buf in
            pcre2_compile_8(buf.baseAddress, buf.count, UInt32(PCRE2_UTF | PCRE2_UCP), &errorCode, &errorOffset, nil)
        }
        guard let compiled else {
            var message = [UInt8](repeating: 0, count: 256)
            let n = pcre2_get_error_message_8(errorCode, &message, message.count)
            throw Failure.invalidPattern(message: String(decoding: message.prefix(max(0, Int(n))), as: UTF8.self), offset: errorOffset)
        }
        code = compiled
        matchContext = pcre2_match_context_create_8(nil)
        if let matchContext {
            pcre2_set_match_limit_8(matchContext, matchLimit)
            pcre2_set_depth_limit_8(matchContext, depthLimit)
        }
    }

    deinit {
        if let matchContext { pcre2_match_context_free_8(matchContext) }
        pcre2_code_free_8(code)
    }

    /// `true` when the whole of `text` matches.
    public func matchesWhole(_ text: String) throws -> Bool {
        let bytes = Array(text.utf8)
        guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else { throw Failure.matchError(-48) }
        defer { pcre2_match_data_free_8(data) }
        let rc = bytes.withUnsafeBufferPointer { buf in
            pcre2_match_8(code, buf.baseAddress ?? UnsafePointer(bitPattern: 1), buf.count, 0,
                          UInt32(PCRE2_ANCHORED | PCRE2_ENDANCHORED), data, matchContext)
        }
        if rc >= 0 { return true }
        if rc == -1 { return false }
        if rc == -47 || rc == -53 { throw Failure.limitExceeded }
        throw Failure.matchError(rc)
    }
}
