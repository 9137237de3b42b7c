import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reports every exchange to a closure of yours, so you can forward it to any logger or metrics system.
///
///     let logging = ExchangeLogging { record in logger.info("\(record)") }
///     EndpointClient(environment: env, middleware: [Retry(), logging])
///
/// Put it last in the chain to see every attempt, retries and refresh replays included. Records never hold
/// secrets: the URL and headers are redacted as in ``CURLCommand``. An endpoint can opt out with
/// `options.isLogged = false`.
public struct ExchangeLogging: Middleware {
    /// One request and its outcome.
    public struct Record: Sendable, CustomStringConvertible {
        /// The request's method.
        public var method: HTTPMethod
        /// The URL with secrets redacted.
        public var redactedURL: String
        /// The request headers, with sensitive values replaced by `<redacted>`.
        public var requestHeaders: HTTPHeaders
        /// The status, or `nil` when no response arrived.
        public var statusCode: Int?
        /// Bytes of request body sent from memory (a file or stream body counts as 0).
        public var bytesSent: Int
        /// Bytes of response body received.
        public var bytesReceived: Int
        /// From handing the request on to receiving the response or error.
        public var duration: Duration
        /// Which attempt this was, from 1.
        public var attempt: Int
        /// The error, when no response arrived.
        public var error: EndpointError?

        /// One line: `GET https://… → 200, 512 B in 12.3 ms (attempt 1)`.
        public var description: String {
            let outcome = statusCode.map { "\($0)" } ?? "failed (\(error?.kind.description ?? "error"))"
            let components = duration.components
            let milliseconds = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
            let shown = (milliseconds * 10).rounded() / 10
            return "\(method) \(redactedURL) → \(outcome), \(bytesReceived) B in \(shown) ms (attempt \(attempt))"
        }
    }

    private let report: @Sendable (Record) -> Void
    private let sensitiveHeaders: Set<HTTPHeaders.Name>
    private let clock = ContinuousClock()

    /// Creates the step.
    ///
    /// - Parameters:
    ///   - sensitiveHeaders: More header names to redact.
    ///   - report: Called once per exchange, from the task that sent it.
    public init(sensitiveHeaders: Set<HTTPHeaders.Name> = [], report: @escaping @Sendable (Record) -> Void) {
        self.sensitiveHeaders = sensitiveHeaders
        self.report = report
    }

    /// Sends `request` and reports how it went.
    public func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
        -> HTTPResponse
    {
        guard context.options.isLogged else { return try await next(request, context: context) }
        let start = clock.now
        var record = Record(
            method: HTTPMethod(request.urlRequest.httpMethod ?? "GET"),
            redactedURL: request.urlRequest.url.map(Redaction.redactedString(for:)) ?? "",
            requestHeaders: Redaction.headers(of: request.urlRequest, alsoSensitive: sensitiveHeaders),
            statusCode: nil,
            bytesSent: request.urlRequest.httpBody?.count ?? 0,
            bytesReceived: 0,
            duration: .zero,
            attempt: context.attempt,
            error: nil
        )
        do {
            let response = try await next(request, context: context)
            record.statusCode = response.statusCode
            record.bytesReceived = response.body.count
            record.duration = clock.now - start
            report(record)
            return response
        } catch {
            record.error = EndpointError.transportFailure(error, request: RequestSummary(request.urlRequest))
            record.duration = clock.now - start
            report(record)
            throw error
        }
    }
}
