// swift-tools-version: 6.2
import PackageDescription

// EndpointKit's OpenTelemetry-conformant tracing, metrics and logs, in a package of its own so that the root
// package keeps no dependencies. The library depends only on the root package (by path) and the three
// instrumentation APIs of the Swift server ecosystem; a service bootstraps the backends it likes (swift-otel,
// swift-prometheus, …). The tests also run every scenario through the AsyncHTTPClient adapter.
let package = Package(
    name: "EndpointKitObservability",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "EndpointKitObservability", targets: ["EndpointKitObservability"])
    ],
    dependencies: [
        .package(name: "EndpointKit", path: "../.."),
        .package(name: "EndpointKitAsyncHTTPClient", path: "../AsyncHTTPClient"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "EndpointKitObservability",
            dependencies: [
                .product(name: "EndpointKit", package: "EndpointKit"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "EndpointKitObservabilityInstructions",
            dependencies: [
                "EndpointKitObservability",
                .product(name: "EndpointKit", package: "EndpointKit"),
                .product(name: "EndpointKitAsyncHTTPClient", package: "EndpointKitAsyncHTTPClient"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Benchmarks/EndpointKitObservabilityInstructions"
        ),
        .testTarget(
            name: "EndpointKitObservabilityTests",
            dependencies: [
                "EndpointKitObservability",
                .product(name: "EndpointKit", package: "EndpointKit"),
                .product(name: "EndpointKitTesting", package: "EndpointKit"),
                .product(name: "EndpointKitAsyncHTTPClient", package: "EndpointKitAsyncHTTPClient"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
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
