import EndpointKit
import Foundation

/// A canned reply for ``StubTransport``: a response, or an error the transport throws.
public struct StubResponse: Sendable {
    enum Outcome: Sendable {
        case response(TransportResponse)
        case failure(any Error)
    }

    let outcome: Outcome
    /// How long the transport waits before answering; the wait ends early, with `CancellationError`, when
    /// the calling task is cancelled.
    public var delay: Duration

    private init(outcome: Outcome, delay: Duration = .zero) {
        self.outcome = outcome
        self.delay = delay
    }

    /// A response with the given status, headers and body.
    public static func response(
        status: Int = 200,
        headers: HTTPHeaders = HTTPHeaders(),
        body: Data = Data()
    ) -> StubResponse {
        StubResponse(outcome: .response(TransportResponse(statusCode: status, headers: headers, data: body)))
    }

    /// A response whose body streams as `chunks`, in order, each arriving only when the reader asks for it.
    public static func streamed(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), chunks: [Data]) -> StubResponse
    {
        let stream = AsyncThrowingStream<Data, any Error> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        return StubResponse(
            outcome: .response(
                TransportResponse(statusCode: status, headers: headers, body: ResponseBody(length: nil, chunks: stream))
            )
        )
    }

    /// A response with the given head and body, e.g. one whose body streams from a test's own source.
    public static func response(_ response: TransportResponse) -> StubResponse {
        StubResponse(outcome: .response(response))
    }

    /// A JSON response: `Content-Type: application/json` and `json` as UTF-8.
    public static func json(_ json: String, status: Int = 200) -> StubResponse {
        response(status: status, headers: [.contentType: "application/json"], body: Data(json.utf8))
    }

    /// A response with a status and no body, e.g. `.status(204)`.
    public static func status(_ status: Int) -> StubResponse {
        response(status: status)
    }

    /// The transport throws `error` instead of answering, e.g. `URLError(.notConnectedToInternet)`.
    public static func failure(_ error: any Error) -> StubResponse {
        StubResponse(outcome: .failure(error))
    }

    /// The transport fails as a lost connection would: ``EndpointError/Kind/transportFailed``, transient, so
    /// ``Retry`` may send the request again.
    public static func connectionLost() -> StubResponse {
        failure(EndpointError(.transportFailed, "the connection was lost (stubbed)", isTransient: true))
    }

    /// This reply, given only after `delay`.
    public func delayed(by delay: Duration) -> StubResponse {
        StubResponse(outcome: outcome, delay: delay)
    }
}
