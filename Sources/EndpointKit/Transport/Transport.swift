import Foundation

/// Sends one request and returns its response head with a streaming body: the seam between EndpointKit and an
/// HTTP stack.
///
/// ``URLSessionTransport`` is the default; `AsyncHTTPClientTransport`, in the `EndpointKitAsyncHTTPClient`
/// product (trait `AsyncHTTPClient`), sends through SwiftNIO with back-pressure; `StubTransport` in
/// `EndpointKitTesting` answers tests without a network; write your own to send through another HTTP stack,
/// and check it with `TransportConformance.check(_:httpbinURL:)` from `EndpointKitTesting`.
///
/// ## The contract
/// A transport knows nothing of endpoints, kinds, middleware or decoding. It must:
/// - **Return every final status as a response.** A 404 or a 500 is a ``TransportResponse``, not an error;
///   throw only when no final response head arrived. **Never return a 1xx**: an informational head (`100
///   Continue`, `103 Early Hints`) is skipped for the final one that follows, and a `101 Switching Protocols`
///   nobody asked for is a ``EndpointError/Kind/transportFailed`` error with ``EndpointError/statusCode`` 101.
/// - **Never follow redirects.** A 3xx is returned as it is: ``EndpointClient`` follows it by its
///   ``RedirectPolicy``, which strips credentials on a change of origin.
/// - **Send the request as given.** The method, URL, headers and body of the ``TransportRequest``, checked
///   by the client just before; add only what the connection needs (`Host`, `Content-Length`,
///   `Transfer-Encoding`).
/// - **Return the head as soon as it arrives and stream the body** through ``ResponseBody`` as bytes
///   arrive, with ``ResponseBody/length`` set when the length is known in advance, unless the
///   ``TransportOptions/body`` lets it collect the body first or write it to a sink.
/// - **Stop the transfer** when the calling task is cancelled while waiting for the head, and when the body's
///   reader leaves or drops the body.
/// - **Report failures as ``EndpointError``**: ``EndpointError/Kind/transportFailed`` (with
///   ``EndpointError/isTransient`` when sending again may succeed: the connection was refused, reset, or
///   closed before the body was complete), ``EndpointError/Kind/timedOut``, ``EndpointError/Kind/cancelled``
///   or ``EndpointError/Kind/responseTooLarge``. Anything else it throws is reported as a non-transient
///   `transportFailed`.
/// - **Say what it does with non-idempotent requests** on a connection that fails: whether it may send a
///   request a second time by itself. ``URLSessionTransport`` sends each non-idempotent request without an
///   `Idempotency-Key` on a connection of its own that carries no other request, because libcurl would resend
///   it on a reused connection that died; `AsyncHTTPClientTransport` never resends a request.
/// - **Say what it does with bytes past a response's length.** `AsyncHTTPClientTransport` never reuses a
///   connection that carried them; Linux ``URLSessionTransport`` cannot see them (libcurl keeps the connection),
///   so it downloads files on connections of their own; see its documentation.
public protocol Transport: Sendable {
    /// Sends `request` and returns the response head and its body, whatever the status, as `options` say.
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse

    /// Whether the transport itself fails a request with ``EndpointError/Kind/timedOut`` once
    /// ``TransportOptions/timeout`` has passed since `send` was called (its whole body included when the body is
    /// collected).
    ///
    /// The client chooses how deadlines are enforced once, when it is made: when this is `true` and the client
    /// runs on the system's `ContinuousClock`, it starts no timer of its own (a timer per request costs
    /// measurable time) and hands each hop the time left of the attempt's deadline; otherwise it runs each
    /// attempt in a task that a timer on its clock cancels. `false` unless a transport says otherwise.
    var enforcesTimeout: Bool { get }
}

extension Transport {
    /// `false`: ``EndpointClient`` enforces the deadline with a timer of its own.
    public var enforcesTimeout: Bool { false }
}
