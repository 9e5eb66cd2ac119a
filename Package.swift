// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "PushLiquid",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Liquid", targets: ["Liquid"]),
        .library(name: "Personalization", targets: ["Personalization"]),
        .library(name: "PushPayload", targets: ["PushPayload"]),
        .library(name: "ContentViews", targets: ["ContentViews"]),
        .executable(name: "pushliquid", targets: ["pushliquid"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // The studio's local HTTP server (pushliquid studio); only the Studio target uses it.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    ],
    targets: [
        // The calling thread's stack bounds (pthread_getattr_np), for the engine's stack guard.
        .target(name: "CStackBounds"),
        .target(
            name: "Liquid",
            dependencies: ["CStackBounds"],
            // No unsafe flags (a package with them cannot be a versioned dependency): the render
            // context's and parser's hot stored properties are `@exclusivity(unchecked)` instead,
            // as each render owns its context on one thread.
            swiftSettings: swiftSettings
        ),
        // libcurl loaded at run time (dlopen), for the few commands that go online: nothing to
        // build against, and nothing loaded by the commands that do not.
        .target(name: "CLibcurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // HTTP requests (Connected Content, the analytics sender) over CLibcurl.
        .target(name: "LibcurlHTTP", dependencies: ["CLibcurl"], swiftSettings: swiftSettings),
        // The Braze dialect: profiles, `${...}` attributes, Braze filters and tags.
        .target(
            name: "Personalization",
            dependencies: ["Liquid", "LibcurlHTTP", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // PCRE2 (libpcre2-8, Debian `libpcre2-dev`) for the content-view input validation.
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"]), .brew(["pcre2"])]
        ),
        // Campaign files to per-recipient APNs/FCM payloads; batch rendering.
        .target(
            name: "PushPayload",
            dependencies: ["Liquid", "Personalization", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        // Content-extension models and the durable analytics queue; the only user of PCRE2.
        .target(
            name: "ContentViews",
            dependencies: ["Liquid", "CPCRE2", "LibcurlHTTP"],
            swiftSettings: swiftSettings
        ),
        // Test helper: writes analytics entries and can stop itself at a crash point.
        .executableTarget(
            name: "analytics-writer",
            dependencies: ["ContentViews", "Liquid"],
            path: "Tests/Helpers/analytics-writer",
            swiftSettings: swiftSettings
        ),
        // `pushliquid studio`: the live preview of every profile in a browser, served by
        // Hummingbird on loopback; the page is plain HTML, CSS and JavaScript kept in the binary.
        .target(
            name: "Studio",
            dependencies: ["Liquid", "Personalization", "PushPayload", "ContentViews",
                           .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "pushliquid",
            dependencies: [
                "Liquid",
                "Personalization",
                "PushPayload",
                "ContentViews",
                "Studio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Test helpers (markers, fixtures); not a product.
        .target(name: "LiquidTestSupport", dependencies: ["Liquid"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentViewsTests",
            dependencies: ["ContentViews", "Liquid", "LiquidTestSupport", "analytics-writer"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StudioTests",
            dependencies: ["Studio", "PushPayload", "Liquid", "LiquidTestSupport", "pushliquid"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushPayloadTests",
            dependencies: ["PushPayload", "Personalization", "Liquid", "LiquidTestSupport", "pushliquid"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PersonalizationTests",
            dependencies: ["Personalization", "Liquid", "LibcurlHTTP", "LiquidTestSupport", "pushliquid"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LiquidTests",
            dependencies: ["Liquid", "Personalization", "LiquidTestSupport", "pushliquid"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
    ]
)
