import Foundation
import Liquid
import Personalization

/// The field-render benchmark behind `pushliquid bench`: a template set in the shape of
/// `w1-learning-progress.*.json` (`title`, `body`, `key_value_pairs`), compiled once, rendered
/// for every context on one thread, with JSON decoding outside the timed loop, the way the
/// reference's script measures it. Each context's fields render in one `RenderSession`, as
/// the send pipeline renders a message (each field still a separate render).
public struct FieldRenderBenchmark {
    /// The compiled fields.
    public let templates: [LiquidTemplate]
    /// Their sources, and the environment that compiled them (for the parse benchmark).
    public let sources: [String]
    let environment: LiquidEnvironment
    /// The decoded contexts (render context documents).
    public let contexts: [RenderContextDocument]

    /// Compiles `templateSet` (JSON) and decodes `contexts` (NDJSON). `braze` selects the dialect;
    /// `contextsName` (a file name) starts the message of a bad context line.
    public init(templateSet: String, contexts: String, contextsName: String = "contexts", braze: Bool) throws {
        guard case .object(let spec) = try JSONValueParser.parse(templateSet) else {
            throw PayloadError.invalidContext("a template set is a JSON object with title, body and key_value_pairs")
        }
        var sources: [(String, String)] = []
        for key in ["title", "body"] { if let v = spec[key]?.stringValue { sources.append((key, v)) } }
        if case .object(let kvs)? = spec["key_value_pairs"] {
            for (k, v) in kvs { sources.append(("key_value_pairs." + k, v.renderedString)) }
        }
        let env = braze ? BrazeDialect().environment() : LiquidEnvironment()
        environment = env
        self.sources = sources.map(\.1)
        templates = try sources.map { try env.parse($0.1, name: $0.0) }
        var docs: [RenderContextDocument] = []
        // Lines read in place from the bytes; blank lines are skipped but counted.
        let bytes = Array(contexts.utf8)
        var start = 0, number = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            number += 1
            if !isBlankLine(bytes[start..<end]) {
                do { docs.append(try RenderContextDocument(jsonBuffer: bytes, range: start..<end)) } catch {
                    throw PayloadError.invalidContext("\(contextsName): line \(number): \(error)")
                }
            }
            start = end + 1
        }
        self.contexts = docs
    }

    /// Renders each template in `session`; returns the bytes written. The templates are
    /// borrowed, not retained one by one.
    @inline(never)
    static func renderAll(_ templates: borrowing [LiquidTemplate], _ session: RenderSession) throws -> Int {
        var bytes = 0
        var t = 0
        while t < templates.count {
            bytes &+= try session.render(templates[t]).utf8.count
            t += 1
        }
        return bytes
    }

    /// Parses every field `rounds` times; returns the seconds taken and the parses.
    public func parse(rounds: Int) throws -> (seconds: Double, parses: Int) {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<rounds {
            for source in sources { _ = try environment.parse(source) }
        }
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, rounds * sources.count)
    }

    /// Renders every field for every context once; returns the seconds taken and the renders.
    public func run() throws -> (seconds: Double, renders: Int, bytes: Int) {
        var bytes = 0
        var renders = 0
        let options = contexts.map { $0.renderOptions() }
        let data = contexts.map(\.value)
        let start = DispatchTime.now().uptimeNanoseconds
        for i in data.indices {
            // One session per recipient, as the send pipeline renders a message's fields
            // (MessageTemplate); each field is still a separate render.
            try LiquidTemplate.withSession(data[i], options: options[i]) { session in
                bytes &+= try Self.renderAll(templates, session)
                renders += templates.count
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (seconds, renders, bytes)
    }
}
