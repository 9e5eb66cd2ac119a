import Foundation
import Liquid

/// The interactive match-game push: a deck of pairs from the key-value pairs, turns,
/// matches, and a custom event recorded on a win.
public struct MatchGameModel: Sendable {
    /// A card.
    public struct Card: Sendable, Equatable {
        /// The symbol shown when face up.
        public let symbol: String
        /// Turned over.
        public var isFaceUp = false
        /// Paired with its twin.
        public var isMatched = false
    }

    /// What a flip did.
    public enum Outcome: Sendable, Equatable {
        /// The first card of a turn.
        case flipped
        /// The second card matched the first.
        case matched
        /// The second card did not match; both turn back down at the next flip.
        case mismatched
        /// Not a valid flip (already face up, matched, out of range, or the game is over).
        case ignored
    }

    /// The game's state.
    public enum Status: Sendable, Equatable { case playing, won, lost }

    /// The cards, shuffled.
    public private(set) var cards: [Card]
    /// Turns taken (pairs of flips).
    public private(set) var turns = 0
    /// The most turns allowed.
    public let maxTurns: Int
    /// The custom event recorded on a win.
    public let winEvent: String
    /// Points promised for a win.
    public let reward: Int
    /// The user, for analytics.
    public let user: UserIdentifier?
    private var pending: Int?
    private var mismatch: (Int, Int)?

    /// Reads `deck` (comma-separated symbols, each exactly twice), `max_turns` (default 8),
    /// `win_event` (default `match_game_won`) and `reward` (default 0); shuffles with `seed`.
    public init(userInfo: LiquidValue, seed: UInt64 = 0) throws {
        var r = PayloadReader(userInfo: userInfo)
        let deckText = r.string("deck")
        let maxTurns = r.int("max_turns", default: 8)
        let winEvent = r.optionalString("win_event") ?? "match_game_won"
        let reward = r.int("reward", default: 0)
        var symbols: [String] = []
        if let deckText {
            symbols = deckText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            var counts: [String: Int] = [:]
            for s in symbols { counts[s, default: 0] += 1 }
            if symbols.count < 4 || symbols.count > 40 || counts.values.contains(where: { $0 != 2 }) {
                r.problems.append(KeyProblem(key: "deck", expected: "2 to 20 symbols, each exactly twice, separated by commas", found: "\"\(deckText)\""))
            }
        }
        if let maxTurns, maxTurns <= 0 { r.problems.append(KeyProblem(key: "max_turns", expected: "a positive integer", found: String(maxTurns))) }
        try r.finish("match_game")
        var rng = SplitMix(seed: seed)
        var deck = symbols.map { Card(symbol: $0) }
        for i in stride(from: deck.count - 1, to: 0, by: -1) {
            let j = Int(rng.next() % UInt64(i + 1))
            deck.swapAt(i, j)
        }
        self.cards = deck
        self.maxTurns = maxTurns!
        self.winEvent = winEvent
        self.reward = reward!
        if let b = PayloadReader(userInfo: userInfo).raw("braze_id")?.stringValue { user = .brazeID(b) } else { user = nil }
    }

    /// Won when every card is matched; lost when out of turns first.
    public var status: Status {
        if cards.allSatisfy(\.isMatched) { return .won }
        return turns >= maxTurns ? .lost : .playing
    }

    /// Flips card `index`. The winning flip records `win_event` (with turns and reward) in `analytics`.
    public mutating func flip(_ index: Int, analytics: AnalyticsStore? = nil, now: Date = Date()) throws -> Outcome {
        guard status == .playing, cards.indices.contains(index), !cards[index].isMatched else { return .ignored }
        if let (a, b) = mismatch {
            cards[a].isFaceUp = false
            cards[b].isFaceUp = false
            mismatch = nil
        }
        guard !cards[index].isFaceUp else { return .ignored }
        cards[index].isFaceUp = true
        guard let first = pending else {
            pending = index
            return .flipped
        }
        pending = nil
        turns += 1
        if cards[first].symbol == cards[index].symbol {
            cards[first].isMatched = true
            cards[index].isMatched = true
            if status == .won, let analytics {
                try analytics.append(.event(winEvent, properties: ["turns": .int(turns), "reward": .int(reward)],
                                            user: user ?? .anonymous, time: now))
            }
            return .matched
        }
        mismatch = (first, index)
        return .mismatched
    }

    /// The board as text, `columns` cards a row: `[🍎] [  ] [??]`.
    public func board(columns: Int = 4) -> String {
        var rows: [String] = []
        for start in stride(from: 0, to: cards.count, by: columns) {
            rows.append(cards[start..<min(cards.count, start + columns)].map { c in
                c.isMatched ? "(\(c.symbol))" : c.isFaceUp ? "[\(c.symbol)]" : "[??]"
            }.joined(separator: " "))
        }
        return rows.joined(separator: "\n")
    }
}

/// A small deterministic generator for shuffles.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
