#if AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import Tracing

/// A ``Transport`` that sends requests through AsyncHTTPClient (SwiftNIO), with back-pressure: the server is
/// read only as fast as the response body is.
///
///     let transport = AsyncHTTPClientTransport()
///     let client = EndpointClient(environment: environment, transport: transport)
///
/// Choose it over ``URLSessionTransport`` on Linux servers, and wherever bodies are streamed or downloaded.
/// Linux URLSession cannot slow a server down, so a body its reader has not caught up with piles up in memory;
/// here a chunk is read from the socket only when the reader asks for the next one. A 1 GB download or event
/// stream therefore holds a few chunks at a time however slow the reader is, and the response size limit of
/// a collected body stops reading at the limit instead of after it.
///
/// What it guarantees beyond the ``Transport`` contract:
/// - **Redirects are returned, not followed**, whatever the configuration says: ``EndpointClient`` follows them
///   by its ``RedirectPolicy``, which decides where credentials go. (So the transport makes its `HTTPClient`
///   itself rather than take one, whose redirect setting it could not read.)
/// - **A request is sent at most once per `send`.** AsyncHTTPClient never re-sends a request on its own, so a
///   `POST` on a keep-alive connection that closes is reported, not repeated; ``Retry`` decides what is sent
///   again.
/// - **Connection failures are reported at once** (``defaultConfiguration()`` turns off AsyncHTTPClient's
///   retrying of connection set-up), as a transient ``EndpointError/Kind/transportFailed``, so that ``Retry``
///   and its policy decide about trying again.
/// - **Timeouts are AsyncHTTPClient's own** (``enforcesTimeout``): the attempt's deadline
///   (``TransportOptions/timeout``) runs to the last byte of a body read whole, and to the head of a streamed
///   one; ``TransportOptions/idleTimeout`` bounds the wait for the head and for each chunk of the body, exactly
///   (no rounding to seconds). EndpointKit starts no timer of its own.
/// - **Compressed responses** are inflated as they are read, and a body that inflates to more than
///   ``maximumDecompressionRatio`` times its compressed size fails with ``EndpointError/Kind/responseTooLarge``
///   (a compression bomb). No `Accept-Encoding` is added: a request that wants compression says so.
/// - **Upload progress** is reported for every body as its chunks are handed to the connection.
/// - **A cancelled call is not sent**, even one of a batch cancelled in a loop while earlier calls of it hold
///   the connections. Calls beyond what the pool sends to an origin at once (its HTTP/1.1 connections per host,
///   or ``concurrentHTTP2RequestsPerOrigin`` once the origin answers over HTTP/2) wait in the transport, not in
///   AsyncHTTPClient's queue, and leave it the moment their task is cancelled. After a waiting call is
///   cancelled (or a sending one, while others wait), the origin's freed connections go to waiting calls only
///   once 50 ms pass without such a cancellation: by then the loop has reached every call of the batch. An origin
///   where nobody waits never pauses.
///
/// The transport owns its `HTTPClient` and shuts it down when it is released (a body still being read keeps it);
/// call ``shutdown()`` to wait for that.
public final class AsyncHTTPClientTransport: Transport {
    /// The client requests are sent through.
    public let client: HTTPClient
    private let isShutDown = NIOLockedValueBox(false)
    /// Which calls may hand their request to the client's pool: the rest wait here, where a cancelled one leaves
    /// at once (see ``AdmissionState``).
    let admission: Admission

    /// How many requests are sent to one origin at once over HTTP/2, where one connection carries them all: the
    /// concurrent streams every server should allow (RFC 9113 §6.5.2 recommends no fewer than 100).
    public static let concurrentHTTP2RequestsPerOrigin = 100

    /// How many times its compressed size a response body may inflate to in ``defaultConfiguration()``: far
    /// above what text and JSON reach (10 to 50 times), far below a compression bomb (about 1,000 times).
    public static let maximumDecompressionRatio = 200

    /// Creates a transport with an `HTTPClient` of its own.
    ///
    /// - Parameters:
    ///   - configuration: The client's configuration; ``defaultConfiguration()`` unless given. Whatever it says
    ///     about redirects, they are returned, not followed. A tracer of its own (set, or bootstrapped before
    ///     the configuration was made) gets AsyncHTTPClient's spans; the no-op tracer is replaced by none, which
    ///     records the same nothing for less work per call.
    ///   - eventLoopGroup: The event loops the client runs on; NIO's shared singleton group unless given.
    public init(
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration(),
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup
    ) {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        // A configuration picks the tracer bootstrapped when it is made: the no-op one unless the process set
        // another. With it, AsyncHTTPClient's delegate API still starts and names a span per request (~30,000
        // instructions, a reflection of the method among them); without a tracer it skips that, and the spans are
        // the same: none.
        if configuration.tracing.tracer is NoOpTracer { configuration.tracing.tracer = nil }
        client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        admission = Admission(
            http1Limit: configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit,
            http2Limit: Self.concurrentHTTP2RequestsPerOrigin,
            timers: eventLoopGroup.any()
        )
    }

    deinit {
        guard !isShutDown.withLockedValue({ $0 }) else { return }
        client.shutdown { _ in }
    }

    /// Shuts the client down and waits until it has; requests sent afterwards fail with
    /// ``EndpointError/Kind/transportFailed``.
    public func shutdown() async throws {
        let first = isShutDown.withLockedValue { isShutDown in
            defer { isShutDown = true }
            return !isShutDown
        }
        if first { try await client.shutdown() }
    }

    /// The configuration ``init(configuration:eventLoopGroup:)`` uses unless given one: no redirects, a
    /// connection failure reported at once, a 10 s connect timeout, no read timeout of the client's own (each
    /// request's ``TransportOptions/idleTimeout`` applies instead), and inflating bodies up to
    /// ``maximumDecompressionRatio``.
    public static func defaultConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10)),
            decompression: .enabled(limit: .ratio(maximumDecompressionRatio))
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Sends `request` and returns as soon as the response head arrives; the body is read from the connection
    /// as its reader asks for it.
    public func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        // Checked as the client checks every hop (free for a request it built), so that a transport called
        // directly never hands AsyncHTTPClient a port it narrows to 16 bits: it stops the process for an IP
        // literal past 65535 and truncates the port of a host name.
        try request.validate()
        // A task cancelled before it gets here, or while it waits for its turn, is never handed to the pool.
        if Task.isCancelled { throw EndpointError(.cancelled, "the task was cancelled before the request was sent") }
        let ticket = try await admission.enter(request.url)
        if case .collect(let limit) = options.body {
            do {
                let response = try await sendCollecting(request, limit: limit, options: options)
                admission.end(ticket, http2: response.protocolVersion == "2")
                return response
            } catch {
                admission.end(ticket)
                throw error
            }
        }
        let slot = Admission.Slot(ticket, of: admission)
        let prepared = try Self.clientRequest(for: request, options: options)
        let headDeadline = Self.headDeadline(for: options)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(prepared, deadline: headDeadline)
        } catch {
            throw Self.endpointError(from: error, afterHead: false, idleTimeout: options.idleTimeout)
        }
        let headReceivedAt = ContinuousClock.now
        let headers = Self.headers(from: response.headers)
        // SwiftNIO skips informational heads (103 Early Hints) itself; a 101 nobody asked for ends HTTP on the
        // connection, and is never an answer. Dropping the body closes it.
        if (100..<200).contains(response.status.code) {
            throw Self.unaskedUpgrade(status: response.status, headers: headers)
        }
        let body = ResponseBody(
            length: headers.announcedBodyLength(statusCode: Int(response.status.code), isHead: request.method == .head)
                .flatMap { Int(exactly: $0) },
            pulling: ResponseChunks(
                body: response.body,
                idleTimeout: options.idleTimeout,
                transport: self,
                slot: slot,
                http2: response.version.major >= 2
            )
        )
        var transportResponse = TransportResponse(
            statusCode: Int(response.status.code),
            headers: headers,
            url: request.url,
            body: body
        )
        transportResponse.headReceivedAt = headReceivedAt
        transportResponse.protocolVersion = Self.protocolVersion(response.version)
        return transportResponse
    }

    /// `true`: the attempt's deadline (``TransportOptions/timeout``) is AsyncHTTPClient's own. A body read whole
    /// goes through its delegate API, whose deadline runs to the body's last byte; a streamed body's deadline
    /// covers the wait for its head, as the ``Transport`` contract asks.
    public var enforcesTimeout: Bool { true }

    /// The error for an informational head that reached the client: a `101 Switching Protocols` nobody asked for,
    /// which ends HTTP on the connection and is never an answer.
    static func unaskedUpgrade(status: HTTPResponseStatus, headers: EndpointKit.HTTPHeaders) -> EndpointError {
        EndpointError(
            .transportFailed,
            "the server answered \(status.code) \(status.reasonPhrase) (upgrade to "
                + "\(headers["upgrade"] ?? "an unnamed protocol")), though the request asked for no upgrade",
            statusCode: Int(status.code),
            responseHeaders: headers
        )
    }

    /// When the wait for the head ends: the idle timeout, or the attempt's deadline when it covers less, or
    /// (with neither) a day, since ``EndpointClient`` bounds the attempt itself.
    static func headDeadline(for options: TransportOptions) -> NIODeadline {
        let waits = [options.idleTimeout, options.timeout].compactMap { $0 }
        guard let shortest = waits.min() else { return .now() + .hours(24) }
        let (seconds, attoseconds) = shortest.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .distantFuture }
        return .now() + .nanoseconds(nanoseconds.partialValue + attoseconds / 1_000_000_000)
    }
}
#endif
