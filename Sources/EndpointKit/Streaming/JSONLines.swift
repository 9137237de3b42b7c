import Foundation

/// The response type of an endpoint whose body is JSON Lines (one JSON value per line) of `Element`: it names
/// the element type where the endpoint is declared, so that the compiler checks how it is called.
///
///     extension Endpoint where Kind == EndpointKinds.Private, Response == JSONLines<Tick> {
///         static var ticks: Self { Endpoint(path: "ticks") }
///     }
///     for try await tick in try await client.jsonLines(for: .ticks, using: token) { show(tick) }
///
/// Such an endpoint cannot be passed to ``EndpointClient/response(for:using:)`` (the body is not one JSON
/// value); ``EndpointClient/bytes(for:using:)`` still reads it with its head. It has no values: it is only a
/// type.
public enum JSONLines<Element: Decodable & Sendable>: Sendable {}

extension EndpointClient {
    /// Sends a JSON Lines endpoint and returns its elements, each decoded as it arrives, once the head has
    /// arrived: ``bytes(for:using:)`` followed by ``StreamedResponse/jsonLines(of:decoder:)`` with the
    /// endpoint's decoder (or the client's).
    ///
    /// - Throws: ``EndpointError``, as ``bytes(for:using:)`` does; a line that does not decode fails the
    ///   sequence with ``EndpointError/Kind/decodingFailed``.
    public func jsonLines<Kind: EndpointKind, Element>(
        for endpoint: Endpoint<Kind, JSONLines<Element>>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> JSONLineSequence<Element> {
        let stream = try await bytes(for: endpoint, using: requestData)
        return stream.jsonLines(of: Element.self, decoder: endpoint.decoder ?? defaults.decoder)
    }

    /// ``jsonLines(for:using:)`` for an endpoint whose kind needs no request data.
    public func jsonLines<Kind: EndpointKind, Element>(
        for endpoint: Endpoint<Kind, JSONLines<Element>>
    ) async throws(EndpointError) -> JSONLineSequence<Element> where Kind.RequestData == Void {
        try await jsonLines(for: endpoint, using: ())
    }
}
