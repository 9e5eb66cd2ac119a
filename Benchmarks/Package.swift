// swift-tools-version: 6.1
// Benchmarks live in their own package so that the main package's `swift test` never
// builds them. Run: `Benchmarks/run.sh` (it preloads the malloc counter and builds in release).
import Foundation
import PackageDescription

// A path dependency is known by its folder's name, which depends on where the repo is cloned.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "PushLiquidBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
    ],
    targets: [
        .executableTarget(
            name: "liquid-bench",
            dependencies: [
                .product(name: "Liquid", package: rootIdentity),
                .product(name: "Personalization", package: rootIdentity),
                .product(name: "PushPayload", package: rootIdentity),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Sources/LiquidBench"
        ),
    ]
)
