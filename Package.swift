// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "EndpointKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "EndpointKit", targets: ["EndpointKit"]),
        .library(name: "EndpointKitTesting", targets: ["EndpointKitTesting"]),
        .executable(name: "endpointkit-demo", targets: ["EndpointKitDemo"]),
    ],
    targets: [
        .target(name: "EndpointKit"),
        .target(name: "EndpointKitTesting", dependencies: ["EndpointKit"]),
        .executableTarget(name: "EndpointKitDemo", dependencies: ["EndpointKit", "EndpointKitTesting"]),
        .executableTarget(
            name: "EndpointKitBenchmarks",
            dependencies: ["EndpointKit"],
            path: "Benchmarks/EndpointKitBenchmarks"
        ),
        .executableTarget(
            name: "EndpointKitInstructions",
            dependencies: ["EndpointKit"],
            path: "Benchmarks/EndpointKitInstructions"
        ),
        // Another process for the disk cache's tests: killed mid-write, or two at once on one directory.
        .executableTarget(
            name: "EndpointKitCacheWriter",
            dependencies: ["EndpointKit"],
            path: "Tests/EndpointKitCacheWriter"
        ),
        // Another process for the outbox's crash harness: queues writes until it is killed, then again.
        .executableTarget(
            name: "EndpointKitOutboxWriter",
            dependencies: ["EndpointKit"],
            path: "Tests/EndpointKitOutboxWriter"
        ),
        .testTarget(name: "EndpointKitTests", dependencies: ["EndpointKit", "EndpointKitTesting"]),
        .testTarget(name: "EndpointKitIntegrationTests", dependencies: ["EndpointKit", "EndpointKitTesting"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
