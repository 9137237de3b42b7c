// swift-tools-version: 6.1
import PackageDescription

// The core (EndpointKit, EndpointKitTesting) depends on no package. Each adapter is a product behind a trait, off by
// default: a package that depends on EndpointKit with default traits resolves no package at all, and one that
// enables a trait resolves that adapter's dependencies only (SwiftPM 6.2 and later leave out dependencies that only
// a disabled trait uses).
//
//     .package(url: "https://github.com/endpointkit/endpointkit.git", from: "0.14.0", traits: ["AsyncHTTPClient"])
let asyncHTTPClient = TargetDependencyCondition.when(traits: ["AsyncHTTPClient"])
let observability = TargetDependencyCondition.when(traits: ["Observability"])
let openAPI = TargetDependencyCondition.when(traits: ["OpenAPI"])
let postgres = TargetDependencyCondition.when(traits: ["Postgres"])

let package = Package(
    name: "EndpointKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "EndpointKit", targets: ["EndpointKit"]),
        .library(name: "EndpointKitTesting", targets: ["EndpointKitTesting"]),
        .library(name: "EndpointKitAsyncHTTPClient", targets: ["EndpointKitAsyncHTTPClient"]),
        .library(name: "EndpointKitObservability", targets: ["EndpointKitObservability"]),
        .library(name: "EndpointKitOpenAPI", targets: ["EndpointKitOpenAPI"]),
        .library(name: "EndpointKitPostgres", targets: ["EndpointKitPostgres"]),
        .executable(name: "endpointkit-openapi", targets: ["endpointkit-openapi"]),
        .plugin(name: "GenerateEndpoints", targets: ["GenerateEndpoints"]),
        .executable(name: "endpointkit-demo", targets: ["EndpointKitDemo"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "EndpointKitAsyncHTTPClient: a transport over AsyncHTTPClient (SwiftNIO), for servers"
        ),
        .trait(
            name: "Observability",
            description: "EndpointKitObservability: OpenTelemetry-conformant tracing, metrics and logs"
        ),
        .trait(
            name: "OpenAPI",
            description:
                "EndpointKitOpenAPI and endpointkit-openapi: typed endpoints generated from OpenAPI descriptions"
        ),
        .trait(
            name: "Postgres",
            description: "EndpointKitPostgres: an outbox a fleet of servers shares in PostgreSQL (postgres-nio)"
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0", traits: []),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(name: "EndpointKit"),
        .target(name: "EndpointKitTesting", dependencies: ["EndpointKit"]),
        // With the Postgres trait, the demo's last step runs two sender processes on one PostgreSQL outbox.
        .executableTarget(
            name: "EndpointKitDemo",
            dependencies: [
                "EndpointKit", "EndpointKitTesting",
                .target(name: "EndpointKitPostgres", condition: postgres),
            ] + postgresDependencies
        ),
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

        // The AsyncHTTPClient adapter (trait AsyncHTTPClient).
        .target(
            name: "EndpointKitAsyncHTTPClient",
            dependencies: ["EndpointKit"] + asyncHTTPClientDependencies,
            path: "Adapters/AsyncHTTPClient/Sources/EndpointKitAsyncHTTPClient"
        ),
        .executableTarget(
            name: "EndpointKitAsyncHTTPClientBenchmarks",
            dependencies: ["EndpointKit", "EndpointKitAsyncHTTPClient"] + asyncHTTPClientDependencies,
            path: "Adapters/AsyncHTTPClient/Benchmarks/EndpointKitAsyncHTTPClientBenchmarks"
        ),
        .executableTarget(
            name: "EndpointKitAsyncHTTPClientInstructions",
            dependencies: ["EndpointKit", "EndpointKitAsyncHTTPClient"] + asyncHTTPClientDependencies,
            path: "Adapters/AsyncHTTPClient/Benchmarks/EndpointKitAsyncHTTPClientInstructions"
        ),
        .testTarget(
            name: "EndpointKitAsyncHTTPClientTests",
            dependencies: ["EndpointKit", "EndpointKitTesting", "EndpointKitAsyncHTTPClient"]
                + asyncHTTPClientDependencies,
            path: "Adapters/AsyncHTTPClient/Tests/EndpointKitAsyncHTTPClientTests"
        ),

        // The Observability adapter (trait Observability); its tests and benchmark also go through the
        // AsyncHTTPClient adapter, and need both traits.
        .target(
            name: "EndpointKitObservability",
            dependencies: ["EndpointKit"] + observabilityDependencies,
            path: "Adapters/Observability/Sources/EndpointKitObservability"
        ),
        .executableTarget(
            name: "EndpointKitObservabilityInstructions",
            dependencies: ["EndpointKit", "EndpointKitObservability", "EndpointKitAsyncHTTPClient"]
                + observabilityDependencies + observabilityTestDependencies,
            path: "Adapters/Observability/Benchmarks/EndpointKitObservabilityInstructions"
        ),
        .testTarget(
            name: "EndpointKitObservabilityTests",
            dependencies: [
                "EndpointKit", "EndpointKitTesting", "EndpointKitObservability", "EndpointKitAsyncHTTPClient",
            ]
                + observabilityDependencies + observabilityTestDependencies,
            path: "Adapters/Observability/Tests/EndpointKitObservabilityTests"
        ),

        // The PostgreSQL outbox (trait Postgres); its tests and its fleet's processes send over both transports,
        // and need the AsyncHTTPClient trait too.
        .target(
            name: "EndpointKitPostgres",
            dependencies: ["EndpointKit"] + postgresDependencies,
            path: "Adapters/Postgres/Sources/EndpointKitPostgres"
        ),
        .executableTarget(
            name: "EndpointKitPostgresFleet",
            dependencies: ["EndpointKit", "EndpointKitPostgres", "EndpointKitAsyncHTTPClient"]
                + postgresDependencies + asyncHTTPClientDependencies + [
                    .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: postgres)
                ],
            path: "Adapters/Postgres/Tests/EndpointKitPostgresFleet"
        ),
        .testTarget(
            name: "EndpointKitPostgresTests",
            dependencies: ["EndpointKit", "EndpointKitTesting", "EndpointKitPostgres", "EndpointKitAsyncHTTPClient"]
                + postgresDependencies + asyncHTTPClientDependencies,
            path: "Adapters/Postgres/Tests/EndpointKitPostgresTests"
        ),

        // The OpenAPI generator (trait OpenAPI): a library the tool and its tests share, and the tool. What it
        // writes depends on EndpointKit alone.
        .target(
            name: "EndpointKitOpenAPI",
            dependencies: openAPIDependencies,
            path: "Generator/Sources/EndpointKitOpenAPI"
        ),
        .executableTarget(
            name: "endpointkit-openapi",
            dependencies: ["EndpointKitOpenAPI"] + openAPIDependencies + [
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: openAPI)
            ],
            path: "Generator/Sources/EndpointKitOpenAPITool"
        ),
        .plugin(
            name: "GenerateEndpoints",
            capability: .command(
                intent: .custom(
                    verb: "generate-endpoints",
                    description: "Writes typed EndpointKit endpoints from an OpenAPI description"
                ),
                permissions: [
                    .writeToPackageDirectory(reason: "It writes the generated Swift sources into the folder you name")
                ]
            ),
            // Named as its product: a plugin that depends on an executable target a product also builds finds
            // it only through a product of the same name (SwiftPM 6.3 fails with "no product named" otherwise).
            dependencies: ["endpointkit-openapi"],
            path: "Generator/Plugins/GenerateEndpoints"
        ),
        .testTarget(
            name: "EndpointKitOpenAPITests",
            dependencies: ["EndpointKitOpenAPI", "EndpointKit"] + openAPIDependencies,
            path: "Generator/Tests/EndpointKitOpenAPITests",
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// What the AsyncHTTPClient adapter builds on, each only with its trait.
var asyncHTTPClientDependencies: [Target.Dependency] {
    [
        .product(name: "AsyncHTTPClient", package: "async-http-client", condition: asyncHTTPClient),
        .product(name: "DequeModule", package: "swift-collections", condition: asyncHTTPClient),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: asyncHTTPClient),
        .product(name: "NIOCore", package: "swift-nio", condition: asyncHTTPClient),
        .product(name: "NIOFoundationCompat", package: "swift-nio", condition: asyncHTTPClient),
        .product(name: "NIOHTTP1", package: "swift-nio", condition: asyncHTTPClient),
        .product(name: "NIOPosix", package: "swift-nio", condition: asyncHTTPClient),
        .product(name: "NIOSSL", package: "swift-nio-ssl", condition: asyncHTTPClient),
        .product(name: "NIOHTTPCompression", package: "swift-nio-extras", condition: asyncHTTPClient),
        .product(name: "Tracing", package: "swift-distributed-tracing", condition: asyncHTTPClient),
    ]
}

/// The three instrumentation APIs the Observability adapter writes to, each only with its trait.
var observabilityDependencies: [Target.Dependency] {
    [
        .product(name: "Tracing", package: "swift-distributed-tracing", condition: observability),
        .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: observability),
        .product(name: "Metrics", package: "swift-metrics", condition: observability),
        .product(name: "Logging", package: "swift-log", condition: observability),
    ]
}

/// What the OpenAPI generator reads descriptions with, each only with its trait.
var openAPIDependencies: [Target.Dependency] {
    [
        .product(name: "OpenAPIKit", package: "OpenAPIKit", condition: openAPI),
        .product(name: "OpenAPIKit30", package: "OpenAPIKit", condition: openAPI),
        .product(name: "OpenAPIKitCompat", package: "OpenAPIKit", condition: openAPI),
        .product(name: "Yams", package: "Yams", condition: openAPI),
    ]
}

/// What the PostgreSQL outbox builds on, each only with its trait.
var postgresDependencies: [Target.Dependency] {
    [
        .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: postgres),
        .product(name: "Logging", package: "swift-log", condition: postgres),
    ]
}

/// The in-memory backends the Observability adapter's tests and benchmark read back.
var observabilityTestDependencies: [Target.Dependency] {
    [
        .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: observability),
        .product(name: "MetricsTestKit", package: "swift-metrics", condition: observability),
        .product(name: "InMemoryLogging", package: "swift-log", condition: observability),
    ]
}

for target in package.targets where target.type != .plugin {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
