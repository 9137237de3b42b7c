import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a successful raw response into the endpoint's `Response`.
enum ResponseDecoding {
    static func decode<Response: Decodable>(
        _ type: Response.Type,
        from response: HTTPResponse,
        envelope: ResponseEnvelope,
        decoder: JSONDecoder,
        request: URLRequest
    ) throws(EndpointError) -> Response {
        if let empty = EmptyResponse() as? Response { return empty }
        func failure(_ message: String, codingPath: String?, underlying: (any Error)?) -> EndpointError {
            EndpointError(
                .decodingFailed,
                message,
                request: RequestSummary(request),
                statusCode: response.statusCode,
                responseHeaders: response.headers,
                body: response.body,
                codingPath: codingPath,
                underlyingError: underlying
            )
        }
        guard !response.body.isEmpty else {
            throw failure(
                "the body is empty but \(Response.self) was expected; use EmptyResponse for endpoints without one",
                codingPath: nil,
                underlying: nil
            )
        }
        do {
            if let key = envelope.key {
                return try decoder.decode(NetworkResponse<Response>.self, from: response.body, key: key).result
            }
            return try decoder.decode(Response.self, from: response.body)
        } catch let error as DecodingError {
            throw failure(
                "the body does not match \(Response.self): \(error.summary)",
                codingPath: error.codingPathDescription,
                underlying: error
            )
        } catch {
            throw failure("the body could not be decoded: \(error)", codingPath: nil, underlying: error)
        }
    }
}

extension JSONDecoder {
    /// Decodes an envelope whose payload sits under `key`.
    fileprivate func decode<Wrapped: Decodable>(
        _ type: NetworkResponse<Wrapped>.Type,
        from data: Data,
        key: String
    ) throws -> NetworkResponse<Wrapped> {
        if (userInfo[.networkResponseKey] as? String ?? NetworkResponse<Wrapped>.defaultKey) == key {
            return try decode(type, from: data)
        }
        let keyed = copy()
        keyed.userInfo[.networkResponseKey] = key
        return try keyed.decode(type, from: data)
    }
}
