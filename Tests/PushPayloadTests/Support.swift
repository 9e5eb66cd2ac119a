import Foundation
import Liquid
import Personalization
import PushPayload

enum TestPaths {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var pushliquidBinary: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("pushliquid")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug/pushliquid")
    }
}

func compile(_ yaml: String, blocks: [String: String] = [:]) throws -> CompiledCampaign {
    let campaign = try Campaign(yaml: yaml, file: "test.yml")
    return try CompiledCampaign(campaign, dialect: BrazeDialect(contentBlocks: InMemoryContentBlocks(blocks)), fileText: yaml)
}

func doc(_ json: String) throws -> RenderContextDocument { try RenderContextDocument(json: json) }

func runPushliquid(_ arguments: [String], stdin: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = TestPaths.pushliquidBinary
    process.arguments = arguments
    process.currentDirectoryURL = TestPaths.repositoryRoot
    let out = Pipe(), err = Pipe(), inp = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inp
    try process.run()
    let writer = inp.fileHandleForWriting
    let input = Data((stdin ?? "").utf8)
    let feeder = Thread {
        writer.write(input)
        try? writer.close()
    }
    feeder.start()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}
