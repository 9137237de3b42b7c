import Foundation

/// The response type of an endpoint whose body is JSON Lines (one JSON value per line) of `Element`: it names
/// the element type where the endpoint is declared, so that the compiler checks how it is called.
///
///     extension Endpoint where Kind == EndpointKinds.Private, Response == JSONLines<Tick> {
///         static var ticks: Self { Endpoint(path: "ticks") }
///     }
///     for try await tick in try await client.stream(for: .ticks, using: token) { show(tick) }
///
/// Such an endpoint cannot be passed to ``EndpointClient/response(for:using:)`` (the body is not one JSON
/// value); ``EndpointClient/stream(for:using:)->JSONLineSequence<Element>`` reads it. It has no values: it is only a
/// type.
public enum JSONLines<Element: Decodable & Sendable>: Sendable {}
