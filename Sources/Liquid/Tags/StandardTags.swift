/// The standard tags of Shopify Liquid 5.
enum StandardTags {
    static let all: [any LiquidTag] = [
        AssignTag(), CaptureTag(), IfTag(), UnlessTag(), CaseTag(), ForTag(), TablerowTag(),
        CycleTag(), IncrementTag(name: "increment"), IncrementTag(name: "decrement"),
        CommentTag(), InlineCommentTag(), RawTag(), DocTag(), EchoTag(), LiquidLinesTag(),
        IncludeTag(), RenderTag(), IfchangedTag(), BreakTag(), ContinueTag(),
    ]
}

/// Checks a variable name written as a tag's target (`assign x`, `capture x`).
func validTargetName(_ s: Substring) -> Bool {
    guard let first = s.utf8.first, isWordByte(first) else { return false }
    return s.utf8.allSatisfy { isWordByte($0) || $0 == UInt8(ascii: "-") }
}
