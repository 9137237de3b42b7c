import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Judges a response after the chain returns it: accept it, fail the call, or send the request again.
///
/// Validators see the final response with its body already read (``ResponseBody/bufferedData``). A validator
/// that fails a response whose body holds a credential the call sent (a server echoing a token back) is asked
/// once more, with that credential replaced by `<redacted>`, so that the error it returns cannot carry it.
///
/// A client runs its validators in order; the first that does not accept decides. Every response that all
/// accept must still have a 2xx status, or the call fails with ``EndpointError/Kind/unacceptableStatus``.
///
///     // An API that reports errors as {"error": {"code": …, "message": …}}, even with status 200:
///     let client = EndpointClient(environment: env, validators: [.errorEnvelope(APIError.self, key: "error")])
///
///     // Refresh a session, then replay the request:
///     let refresh = ResponseValidator { response, _ in
///         response.statusCode == 419 ? .retry(.afterRunning { try await session.renew() }) : .accept
///     }
public struct ResponseValidator: Sendable {
    /// What a validator decided.
    public enum Verdict: Sendable {
        /// No objection; the next validator decides.
        case accept
        /// The call fails with this error; an ``EndpointError`` is thrown as it is, anything else as
        /// ``EndpointError/Kind/responseRejected`` with it as the underlying error.
        case fail(any Error)
        /// Send the request again, after `action`: a new attempt, counted with every other, on the client's clock.
        case retry(RetryAction)
    }

    /// What happens before a validator's retry.
    public enum RetryAction: Sendable {
        /// Send again at once.
        case immediately
        /// Send again after a delay, on the client's clock; cancellation ends the wait at once.
        case after(Duration)
        /// Run another operation first, e.g. a token refresh, then send again.
        case afterRunning(@Sendable () async throws -> Void)
    }

    private let judge: @Sendable (TransportResponse, TransportRequest) async throws -> Verdict

    /// Creates a validator from a function of the response and the request that produced it.
    public init(_ judge: @escaping @Sendable (TransportResponse, TransportRequest) async throws -> Verdict) {
        self.judge = judge
    }

    /// Runs the validator.
    public func validate(_ response: TransportResponse, for request: TransportRequest) async throws -> Verdict {
        try await judge(response, request)
    }

    /// Whether `needle` occurs in `haystack`: a plain byte scan, several times faster than `Data.range(of:)`.
    static func contains(_ needle: [UInt8], in haystack: Data) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count else { return needle.isEmpty }
        return haystack.withUnsafeBytes { bytes -> Bool in
            let last = bytes.count - needle.count
            var index = 0
            while index <= last {
                if bytes[index] == first {
                    var matched = 1
                    while matched < needle.count, bytes[index + matched] == needle[matched] { matched += 1 }
                    if matched == needle.count { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// Fails a call whose body holds an error envelope, `{"<key>": <ServerError>}`, whatever the status.
    ///
    /// Bodies without the key, or whose value does not decode, are accepted unchanged.
    public static func errorEnvelope<ServerError: Error & Decodable & Sendable>(
        _ type: ServerError.Type,
        key: String = "error",
        decoder: JSONDecoder = JSONDecoder()
    ) -> ResponseValidator {
        let keyed = decoder.copy()
        keyed.userInfo[.networkResponseKey] = key
        let quotedKey = Array("\"\(key)\"".utf8)
        return ResponseValidator { response, _ in
            let body = response.bufferedBody
            // Cheap first: a body that does not even contain the quoted key needs no second parse.
            guard !body.isEmpty, Self.contains(quotedKey, in: body),
                let envelope = try? keyed.decode(NetworkResponse<ServerError>.self, from: body)
            else { return .accept }
            return .fail(envelope.result)
        }
    }

    /// Decodes the body of a response outside 200–299 as `ServerError`, an API's own top-level error JSON such
    /// as `{"message": "Not Found", "errors": […]}`, and fails the call with it.
    ///
    ///     struct APIError: Error, Decodable, Sendable { var message: String }
    ///     let client = EndpointClient(environment: env, validators: [.errorBody(APIError.self)])
    ///
    ///     do {
    ///         _ = try await client.response(for: .item(42))
    ///     } catch let error where error.kind == .unacceptableStatus && error.statusCode == 404 {
    ///         print(error.serverError(as: APIError.self)?.message ?? "not found")
    ///     }
    ///
    /// The error keeps its kind, ``EndpointError/Kind/unacceptableStatus``, and its status, so code that matches
    /// them keeps working; ``EndpointError/serverError(as:)`` returns the decoded value. A body that does not
    /// decode leaves the call to fail as it would have. Successful responses are not read.
    public static func errorBody<ServerError: Error & Decodable & Sendable>(
        _ type: ServerError.Type,
        decoder: JSONDecoder = JSONDecoder()
    ) -> ResponseValidator {
        ResponseValidator { response, _ in
            let body = response.bufferedBody
            guard !response.isSuccess, !body.isEmpty,
                let serverError = try? decoder.decode(ServerError.self, from: body)
            else { return .accept }
            return .fail(
                EndpointError(
                    .unacceptableStatus,
                    "the server answered \(response.statusCode): \(serverError)",
                    statusCode: response.statusCode,
                    responseHeaders: response.headers,
                    body: body,
                    underlyingError: serverError
                )
            )
        }
    }
}
