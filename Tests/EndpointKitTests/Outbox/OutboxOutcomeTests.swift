import Foundation
import Testing

@testable import EndpointKit

/// How the outbox reads a failed try: a refusal (rolled back), a failure that may pass (the group pauses), or the
/// end of the outbox; and how long a paused group waits.
@Suite struct OutboxOutcomeTests {
    private typealias Subject = Outbox<EndpointKinds.Public>

    private static func kind(of error: EndpointError) -> String {
        switch Subject.outcome(of: error) {
        case .sent: "sent"
        case .refused: "refused"
        case .retry: "retry"
        case .cancelled: "cancelled"
        }
    }

    private static func status(_ code: Int, headers: HTTPHeaders? = nil) -> EndpointError {
        EndpointError(.unacceptableStatus, "status \(code)", statusCode: code, responseHeaders: headers)
    }

    @Test("4xx other than 408 and 429 is a refusal; 408, 429, 5xx and a 409 with Retry-After may pass")
    func statuses() {
        for code in [400, 401, 403, 404, 409, 410, 412, 413, 422] {
            #expect(Self.kind(of: Self.status(code)) == "refused")
        }
        for code in [408, 429, 500, 502, 503, 504] { #expect(Self.kind(of: Self.status(code)) == "retry") }
        #expect(Self.kind(of: Self.status(409, headers: ["Retry-After": "1"])) == "retry")
        // The server's wait is read from the answer when no Retry step read it.
        if case .retry(_, let wait) = Subject.outcome(of: Self.status(503, headers: ["Retry-After": "120"])) {
            #expect(wait == .seconds(120))
        } else {
            Issue.record("a 503 is not a pause")
        }
        // A 2xx whose body could not be read in full was still taken by the server.
        #expect(Self.kind(of: EndpointError(.responseTooLarge, "big", statusCode: 201)) == "sent")
    }

    @Test("No network, a timeout or a TLS failure may pass; a request that cannot be built never will")
    func failures() {
        for kind in [EndpointError.Kind.transportFailed, .timedOut, .secureConnectionFailed, .rateLimited] {
            #expect(Self.kind(of: EndpointError(kind, "x")) == "retry")
        }
        for kind in [EndpointError.Kind.invalidRequest, .encodingFailed, .redirectRefused, .tooManyRedirects] {
            #expect(Self.kind(of: EndpointError(kind, "x")) == "refused")
        }
        #expect(Self.kind(of: EndpointError(.cancelled, "x")) == "cancelled")
    }

    @Test("Backoff doubles per failure up to its cap, jitter places it in its upper half, and Retry-After wins")
    func backoff() {
        var policy = OutboxPolicy()
        policy.initialBackoff = .seconds(1)
        policy.maximumBackoff = .seconds(8)

        #expect(policy.backoff(afterFailures: 1, retryAfter: nil, jitter: 0) == .milliseconds(500))
        #expect(policy.backoff(afterFailures: 1, retryAfter: nil, jitter: 1) == .seconds(1))
        #expect(policy.backoff(afterFailures: 3, retryAfter: nil, jitter: 0) == .seconds(2))
        #expect(policy.backoff(afterFailures: 3, retryAfter: nil, jitter: 0.5) == .seconds(3))
        #expect(policy.backoff(afterFailures: 60, retryAfter: nil, jitter: 1) == .seconds(8))
        #expect(policy.backoff(afterFailures: 60, retryAfter: nil, jitter: 7) == .seconds(8))
        #expect(policy.backoff(afterFailures: 1, retryAfter: .seconds(30), jitter: 1) == .seconds(30))
    }

    @Test("A change reads as one line, its wait rounded with its unit")
    func changeDescription() {
        let error = EndpointError(.transportFailed, "no network")
        let paused = OutboxChange.paused(group: "items", error: error, retryIn: .milliseconds(1_811.633_210))

        #expect(paused.description == "paused group items for 1.8 s: EndpointError.transportFailed | no network")
    }
}
