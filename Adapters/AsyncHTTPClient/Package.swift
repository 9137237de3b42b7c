// swift-tools-version: 6.1
import PackageDescription

// EndpointKit's transport for AsyncHTTPClient, in a package of its own so that the root package keeps no
// dependencies. It depends on the root package by path.
let package = Package(
    name: "EndpointKitAsyncHTTPClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "EndpointKitAsyncHTTPClient", targets: ["EndpointKitAsyncHTTPClient"])
    ],
    dependencies: [
        .package(name: "EndpointKit", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    ],
    targets: [
        .target(
            name: "EndpointKitAsyncHTTPClient",
            dependencies: [
                .product(name: "EndpointKit", package: "EndpointKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        .executableTarget(
            name: "EndpointKitAsyncHTTPClientBenchmarks",
            dependencies: [
                "EndpointKitAsyncHTTPClient",
                .product(name: "EndpointKit", package: "EndpointKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/EndpointKitAsyncHTTPClientBenchmarks"
        ),
        .executableTarget(
            name: "EndpointKitAsyncHTTPClientInstructions",
            dependencies: [
                "EndpointKitAsyncHTTPClient",
                .product(name: "EndpointKit", package: "EndpointKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/EndpointKitAsyncHTTPClientInstructions"
        ),
        .testTarget(
            name: "EndpointKitAsyncHTTPClientTests",
            dependencies: [
                "EndpointKitAsyncHTTPClient",
                .product(name: "EndpointKit", package: "EndpointKit"),
                .product(name: "EndpointKitTesting", package: "EndpointKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
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
