// swift-tools-version: 6.1
// Benchmarks live in their own package so that the main package's `swift test` never
// builds them. Run: `swift run -c release --package-path Benchmarks liquid-bench`.
import Foundation
import PackageDescription

// A path dependency is known by its folder's name, which depends on where the repo is cloned.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "PushLiquidBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "liquid-bench",
            dependencies: [.product(name: "Liquid", package: rootIdentity)],
            path: "Sources/LiquidBench"
        ),
    ]
)
