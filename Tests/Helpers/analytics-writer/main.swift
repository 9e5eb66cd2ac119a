import ContentViews
import Foundation
import Liquid

// analytics-writer DIR COUNT [CRASH_POINT ENTRY]
// Appends COUNT events to the store in DIR, writing "committed N" to standard output after
// each append returns. With CRASH_POINT and ENTRY, the process _exits(137) at that point of
// that entry, as a kill would stop it.
let args = CommandLine.arguments
guard args.count >= 3, let count = Int(args[2]) else {
    FileHandle.standardError.write(Data("usage: analytics-writer DIR COUNT [CRASH_POINT ENTRY]\n".utf8))
    exit(2)
}

struct CrashAt: Sendable {
    let point: AnalyticsStore.CrashPoint
    let entry: Int
    func check(_ p: AnalyticsStore.CrashPoint, _ seq: Int) {
        if p == point && seq == entry { _exit(137) }
    }
}

var hook: (@Sendable (AnalyticsStore.CrashPoint, Int) -> Void)?
if args.count >= 5, let point = AnalyticsStore.CrashPoint(rawValue: args[3]), let entry = Int(args[4]) {
    let crash = CrashAt(point: point, entry: entry)
    hook = { p, seq in crash.check(p, seq) }
}
let store = try AnalyticsStore(directory: URL(fileURLWithPath: args[1]), crashHook: hook)
let out = FileHandle.standardOutput
for i in 1...count {
    var props = LiquidObject()
    props["n"] = .int(i)
    props["pid"] = .int(Int(getpid()))
    props["pad"] = .string(String(repeating: "x", count: 64))
    try store.append(.event("writer_event", properties: props, user: .externalID("writer-\(getpid())")))
    out.write(Data("committed \(i)\n".utf8))
}
