// swift-tools-version: 6.1
// libFuzzer targets, in their own package so that the main package's `swift test` never builds
// them. Build and run with `scripts/fuzz.sh TARGET SECONDS` (it adds -sanitize=fuzzer,address).
import Foundation
import PackageDescription

// A path dependency is known by its folder's name, which depends on where the repo is cloned.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()
let root: [Target.Dependency] = [
    .product(name: "Liquid", package: rootIdentity),
    .product(name: "Personalization", package: rootIdentity),
    .product(name: "PushPayload", package: rootIdentity),
]

let package = Package(
    name: "PushLiquidFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "..")],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver (the runtime that -sanitize=fuzzer links).
        .target(name: "CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver"] + root),
        .executableTarget(name: "fuzz-template", dependencies: ["FuzzSupport"] + root),
        .executableTarget(name: "fuzz-json", dependencies: ["FuzzSupport"] + root),
        .executableTarget(name: "fuzz-campaign", dependencies: ["FuzzSupport"] + root),
        .executableTarget(name: "fuzz-batch-line", dependencies: ["FuzzSupport"] + root),
    ]
)
