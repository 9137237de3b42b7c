import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a successful raw response into the endpoint's `Response`.
enum ResponseDecoding {
    /// `response`'s body as `Response`: `EmptyResponse` whatever the body, `Data` as it is, `String` as text in
    /// the response's charset, anything else decoded as JSON, inside `envelope` when it has a key.
    static func decode<Response: Decodable>(
        _ type: Response.Type,
        from response: TransportResponse,
        envelope: ResponseEnvelope,
        decoder: JSONDecoder,
        request: () -> RequestSummary
    ) throws(EndpointError) -> Response {
        // The types are compared before anything is cast: a cast that fails costs more than the comparison.
        if Response.self == EmptyResponse.self, let empty = EmptyResponse() as? Response { return empty }
        let body = response.bufferedBody
        if Response.self == Data.self, let data = body as? Response { return data }
        func failure(_ message: String, codingPath: String?, underlying: (any Error)?) -> EndpointError {
            EndpointError(
                .decodingFailed,
                message,
                request: request(),
                statusCode: response.statusCode,
                responseHeaders: response.headers,
                body: body,
                codingPath: codingPath,
                underlyingError: underlying
            )
        }
        if Response.self == String.self {
            let encoding = textEncoding(of: response.headers[.contentType])
            guard let text = String(data: body, encoding: encoding) as? Response else {
                throw failure(
                    "the body is not valid text in its charset (\(encoding))",
                    codingPath: nil,
                    underlying: nil
                )
            }
            return text
        }
        guard !body.isEmpty else {
            throw failure(
                "the body is empty but \(Response.self) was expected; use EmptyResponse for endpoints without one",
                codingPath: nil,
                underlying: nil
            )
        }
        do {
            return try decodeJSON(Response.self, from: body, envelope: envelope, decoder: decoder)
        } catch let error as DecodingError {
            let wireKeys = DecodingError.namesWireKeys(decoder)
            throw failure(
                "the body does not match \(Response.self): \(error.summary(wireKeys: wireKeys))",
                codingPath: error.codingPathDescription(wireKeys: wireKeys),
                underlying: error
            )
        } catch {
            throw failure("the body could not be decoded: \(error)", codingPath: nil, underlying: error)
        }
    }
}

extension ResponseDecoding {
    /// `body` as JSON, under the envelope's key if it has one.
    private static func decodeJSON<Response: Decodable>(
        _ type: Response.Type,
        from body: Data,
        envelope: ResponseEnvelope,
        decoder: JSONDecoder
    ) throws -> Response {
        guard let key = envelope.key else { return try decoder.decode(Response.self, from: body) }
        // The usual key by a fixed coding key, without reading the decoder's user info twice a call.
        if key == NetworkResponse<Response>.defaultKey {
            return try decoder.decode(ResultEnvelope<Response>.self, from: body).result
        }
        return try decoder.decode(NetworkResponse<Response>.self, from: body, key: key).result
    }

    /// The text encoding a `Content-Type` names with `charset=`, UTF-8 when it names none or one unknown here.
    static func textEncoding(of contentType: String?) -> String.Encoding {
        guard let contentType else { return .utf8 }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { continue }
            switch pair[1].lowercased() {
            case "utf-8", "utf8": return .utf8
            case "iso-8859-1", "latin1", "iso8859-1": return .isoLatin1
            case "us-ascii", "ascii": return .ascii
            case "utf-16": return .utf16
            case "utf-16le": return .utf16LittleEndian
            case "utf-16be": return .utf16BigEndian
            case "windows-1252", "cp1252": return .windowsCP1252
            default: return .utf8
            }
        }
        return .utf8
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

/// `{"result": …}`: ``NetworkResponse`` under its default key, decoded as the same JSON is, the decoder's key
/// strategy included.
private struct ResultEnvelope<Wrapped: Decodable>: Decodable {
    var result: Wrapped
}
