/// What an information-capture push asks for.
public enum CaptureKind: String, Sendable, CaseIterable {
    case email
    case phone

    /// The built-in pattern: a practical e-mail address (local@domain.tld), or an
    /// international phone number (optional `+`, 7 to 15 digits, spaces, dashes, dots and
    /// parentheses allowed between them).
    public var builtInPattern: String {
        switch self {
        case .email:
            return #"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,63}"#
        case .phone:
            return #"\+?(?:[ .()-]*\d){7,15}[ .()-]*"#
        }
    }

    /// The user attribute a captured value is stored in.
    public var attributeName: String { self == .email ? "email" : "phone" }
}
