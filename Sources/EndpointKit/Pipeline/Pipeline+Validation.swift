import Foundation

extension Pipeline {
    /// `nil` when every validator and the status check accept; the retry action when one asks for a retry.
    func verdict(on response: TransportResponse, for request: TransportRequest, call: CallState)
        async throws(EndpointError) -> ResponseValidator.RetryAction?
    {
        func failure(_ kind: EndpointError.Kind, _ message: String, _ underlying: (any Error)?) -> EndpointError {
            EndpointError(
                kind,
                message,
                request: call.redactor.summary(of: request),
                statusCode: response.statusCode,
                responseHeaders: response.headers,
                body: response.bufferedBody,
                underlyingError: underlying
            )
        }
        for validator in validators {
            var verdict: ResponseValidator.Verdict
            do {
                verdict = try await validator.validate(response, for: request)
                // A validator that fails the call may have decoded the body into the caller's own type, which
                // nothing redacts later: when the body holds a credential this call sent (a server echoing it),
                // it is asked again with the credential replaced. Looked for only then, not on every response.
                if case .fail = verdict, let body = response.body.bufferedData, !body.isEmpty,
                    let scrubbed = EndpointError.scrubbing(body, of: call.secrets)
                {
                    var seen = response
                    seen.body = ResponseBody(scrubbed)
                    verdict = try await validator.validate(seen, for: request)
                }
            } catch {
                throw failure(.responseRejected, "a validator failed: \(error)", error)
            }
            switch verdict {
            case .accept:
                continue
            case .fail(let error as EndpointError):
                throw error
            case .fail(let error):
                throw failure(.responseRejected, "the server reported an error: \(error)", error)
            case .retry(let action):
                return action
            }
        }
        guard response.isSuccess else {
            throw failure(.unacceptableStatus, "the server answered \(response.statusCode)", nil)
        }
        return nil
    }

    /// Waits, on the client's clock, or runs what a validator asked for before the call is sent again.
    func perform(_ action: ResponseValidator.RetryAction) async throws(EndpointError) {
        do {
            switch action {
            case .immediately: break
            case .after(let delay): try await clock.sleep(for: delay)
            case .afterRunning(let operation): try await operation()
            }
        } catch {
            throw EndpointError.wrapping(error)
        }
    }
}
