import Foundation
import FuzzSupport
import Liquid
import Personalization

// An input: one byte choosing the dialect and parse mode, the template, then (after a NUL
// byte) the render data as JSON (ignored when it is not JSON).
private let environments: [LiquidEnvironment] = {
    var standard = LiquidEnvironment(errorMode: .lax, fileSystem: fuzzPartials, limits: fuzzLimits)
    let lax = standard
    standard.errorMode = .strict
    let strict = standard
    standard.errorMode = .warn
    let warn = standard
    standard.errorMode = .strict2
    let strict2 = standard
    var braze = fuzzBraze.environment(errorMode: .lax, limits: fuzzLimits)
    braze.fileSystem = fuzzPartials
    let brazeLax = braze
    braze.errorMode = .strict
    return [lax, strict, warn, brazeLax, braze, strict2]
}()

private let defaultData: LiquidValue = [
    "profile": ["first_name": "Ana", "custom_attributes": ["points": 12.5, "tags": ["a", "b"]]],
    "product": ["title": "Latte", "price": 4.5, "tags": ["hot", "milk"]],
    "items": [1, 2.5, "three", ["k": "v"], nil, true],
    "n": 9_223_372_036_854_775_807,
]

// SwiftPM links an executable's entry point as `<module>_main`: the top-level code of this
// file is it, and hands the process to libFuzzer.
exit(runFuzzer(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    let input = bytes(data, size)
    guard let selector = input.first else { return 0 }
    let rest = input.dropFirst()
    let split = rest.firstIndex(of: 0) ?? rest.endIndex
    let source = String(decoding: rest[..<split], as: UTF8.self)
    var renderData = defaultData
    if split < rest.endIndex {
        var parser = JSONValueParser(bytes: rest[rest.index(after: split)...])
        if let parsed = try? parser.parse() { renderData = parsed }
    }
    let env = environments[Int(selector) % environments.count]
    guard let template = try? env.parse(source, name: "fuzz") else { return 0 }
    _ = try? template.render(renderData, options: fuzzOptions)
    if env.attributeSyntax != nil, let document = try? RenderContextDocument(value: renderData) {
        _ = try? MessageTemplate(fields: [.init(name: "a", template: template), .init(name: "b", template: template)]).render(document)
    }
    return 0
})
