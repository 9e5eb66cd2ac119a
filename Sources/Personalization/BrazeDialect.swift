import Foundation
import Liquid

/// The Braze dialect of Liquid: `${...}` attributes, Braze's filters and tags
/// (`abort_message`, `connected_content`, `content_blocks`), over standard Liquid 5.
///
/// ```swift
/// let dialect = BrazeDialect(contentBlocks: DirectoryContentBlocks(directory: blocksURL))
/// let template = try dialect.environment().parse("Hi {{${first_name} | default: 'there'}}")
/// let result = try template.renderMessage(document)   // .rendered("Hi Ana") or .aborted(...)
/// ```
public struct BrazeDialect: Sendable {
    /// Where content blocks come from.
    public var contentBlocks: (any ContentBlockSource)?
    /// How Connected Content reaches the network; `nil` makes the tag an error.
    public var connectedContent: ConnectedContentConfiguration?
    /// Where `{% catalog_items %}` finds catalogs; `nil` makes the tag an error.
    public var catalogs: (any CatalogSource)?
    /// Where `{% promotion('list') %}` takes codes; `nil` makes the tag an error.
    public var promotionCodes: (any PromotionCodeSource)?

    /// A dialect with optional content blocks, Connected Content, catalogs and promotion codes.
    public init(contentBlocks: (any ContentBlockSource)? = nil, connectedContent: ConnectedContentConfiguration? = nil,
                catalogs: (any CatalogSource)? = nil, promotionCodes: (any PromotionCodeSource)? = nil) {
        self.contentBlocks = contentBlocks
        self.connectedContent = connectedContent
        self.catalogs = catalogs
        self.promotionCodes = promotionCodes
    }

    /// The tags Braze adds.
    public static let tagNames = ["abort_message", "connected_content", "message_extras", "catalog_items", "promotion", "random"]

    /// Standard Liquid filters that Braze's documentation lists as not supported: they work
    /// here, and `pushliquid check` warns that they may not in Braze.
    public static let filtersBrazeListsAsUnsupported = ["lstrip", "rstrip"]

    /// Braze tags this engine refuses, each a syntax error that says why.
    public static let refusedTags: [(name: String, why: String)] = [
        ("catalog_selection_items", "catalog selections are defined in Braze's dashboard (their filters, sort and limit are not in the workspace); name the items with {% catalog_items NAME ID... %}"),
        ("shopping_cart", "eCommerce cart data comes from Braze's cart events, which a render context document does not carry; pass the cart in canvas_entry_properties or context instead"),
    ]
    /// The filters Braze adds.
    public static var filterNames: [String] { BrazeFilters.all.map(\.name) }

    /// An environment with standard Liquid plus Braze's syntax, tags and filters.
    ///
    /// With a `recorder`, every `${...}` attribute parsed is recorded (see ``AttributeRecorder``).
    public func environment(errorMode: LiquidErrorMode = .lax, limits: LiquidLimits = LiquidLimits(), recorder: AttributeRecorder? = nil) -> LiquidEnvironment {
        var env = LiquidEnvironment(errorMode: errorMode, limits: limits)
        env.attributeSyntax = BrazeAttributeSyntax(contentBlocks: contentBlocks.map { ContentBlockStore(source: $0) }, recorder: recorder)
        env.register(AbortMessageTag())
        env.register(ConnectedContentTag(configuration: connectedContent))
        env.register(MessageExtrasTag())
        env.register(CatalogItemsTag(catalogs: catalogs))
        env.register(PromotionTag(source: promotionCodes))
        env.register(RandomTag())
        for refused in Self.refusedTags { env.register(RefusedTag(name: refused.name, why: refused.why)) }
        for filter in BrazeFilters.all { env.register(filter) }
        return env
    }
}

/// What rendering one field of a message gives.
public enum MessageRenderResult: Sendable, Equatable {
    /// The text.
    case rendered(String)
    /// `{% abort_message %}` (or failed Connected Content retries) ended the message.
    case aborted(reason: String?)
}

extension LiquidTemplate {
    /// Renders with a render context document: its `now` is the clock; an abort is a result,
    /// not an error. Other failures throw ``LiquidError``.
    public func renderMessage(_ document: RenderContextDocument, options: RenderOptions? = nil) throws -> MessageRenderResult {
        do {
            return .rendered(try render(document.value, options: options ?? document.renderOptions()))
        } catch let abort as MessageAborted {
            return .aborted(reason: abort.reason)
        }
    }
}

extension RenderSession {
    /// Renders `template` in this session; an abort is a result, not an error (see
    /// ``LiquidTemplate/renderMessage(_:options:)``).
    public func renderMessage(_ template: LiquidTemplate) throws -> MessageRenderResult {
        do {
            return .rendered(try render(template))
        } catch let abort as MessageAborted {
            return .aborted(reason: abort.reason)
        }
    }
}
