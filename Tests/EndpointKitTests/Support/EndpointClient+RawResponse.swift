import EndpointKit
import Foundation

extension EndpointClient {
    /// The response as the server sent it, any status, its body read whole: what a caller gets from the public
    /// verbs with the endpoint read as `Data` and validation off (0.2's `rawResponse(for:using:)`).
    func rawResponse<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData
    ) async throws(EndpointError) -> TransportResponse {
        var raw = endpoint.decoding(as: Data.self)
        raw.options.isValidated = false
        let response = try await exchange(for: raw, using: requestData)
        return TransportResponse(
            statusCode: response.statusCode,
            headers: response.headers,
            url: response.url,
            data: response.value
        )
    }
}
