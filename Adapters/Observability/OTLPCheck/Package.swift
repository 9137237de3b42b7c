// swift-tools-version: 6.2
import PackageDescription

// A check, not a library: exports one traced call over OTLP/HTTP with swift-otel to a local receiver
// (scripts/otlp-check.sh runs both). A package of its own because swift-otel takes about seven minutes to build,
// too long for every CI run; the adapter itself does not depend on it.
let package = Package(
    name: "OTLPCheck",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "EndpointKit", path: "../../..", traits: ["Observability"]),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .executableTarget(
            name: "OTLPCheck",
            dependencies: [
                .product(name: "EndpointKit", package: "EndpointKit"),
                .product(name: "EndpointKitObservability", package: "EndpointKit"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
