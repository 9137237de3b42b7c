import Foundation

extension Outbox {
    /// Sends `record` once, through the client's pipeline with the kind's current request data, and says how it
    /// ended.
    package static func send(
        _ record: OutboxRecord,
        client: EndpointClient,
        policy: OutboxPolicy,
        requestData: @Sendable () async throws -> Kind.RequestData
    ) async -> OutboxState.Outcome {
        let data: Kind.RequestData
        do { data = try await requestData() } catch {
            if Task.isCancelled { return .cancelled }
            let failure = EndpointError(
                .authenticationFailed,
                "the outbox could not get the request data of its kind (\(type(of: error)))",
                underlyingError: error,
                mayHaveBeenSent: false
            )
            return .retry(failure, retryAfter: nil)
        }
        do {
            let response = try await client.exchange(
                for: record.endpoint(Kind.self, keyFormat: policy.keyFormat),
                using: data
            )
            return .sent(statusCode: response.statusCode, body: response.value)
        } catch {
            return outcome(of: error)
        }
    }

    /// Whether a failed try is a refusal, a failure that may pass, or the end of the outbox.
    package static func outcome(of error: EndpointError) -> OutboxState.Outcome {
        if error.kind == .cancelled { return .cancelled }
        // The server's own wait: what `Retry` read, or else the answer's header.
        let retryAfter = error.retryAfter ?? RetryPolicy.retryAfter(error.responseHeaders?[.retryAfter])
        if let status = error.statusCode {
            // A 2xx whose body could not be read in full (too large) was still taken.
            if (200..<300).contains(status) { return .sent(statusCode: status, body: Data()) }
            let mayPass =
                status == 408 || status == 429 || status >= 500
                || (status == 409 && error.responseHeaders?[.retryAfter] != nil)
            if mayPass || error.kind == .rateLimited { return .retry(error, retryAfter: retryAfter) }
            return .refused(error)
        }
        switch error.kind {
        case .transportFailed, .timedOut, .secureConnectionFailed, .authenticationFailed, .rateLimited:
            return .retry(error, retryAfter: retryAfter)
        default:
            return .refused(error)
        }
    }
}
