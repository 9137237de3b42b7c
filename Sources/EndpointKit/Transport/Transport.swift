import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a prepared request and returns the raw response: the seam between EndpointKit and the network.
///
/// ``URLSessionTransport`` is the default. Tests use `StubTransport` from `EndpointKitTesting`; write your own
/// to send through another HTTP stack. A transport returns every status as a response (a 404 is not an
/// error here) and throws only when no response arrived. Cancelling the calling task must stop the transfer.
public protocol Transport: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    func send(_ request: TransportRequest) async throws -> HTTPResponse
}

/// A request ready to send: the `URLRequest`, and the file to stream as its body when there is one.
public struct TransportRequest: Sendable {
    /// The request; `httpBody` holds an in-memory body.
    public var urlRequest: URLRequest
    /// A file whose contents are the body, streamed from disk, or `nil`.
    public var bodyFileURL: URL?
    /// Whether ``bodyFileURL`` was made for this request only and is deleted once the call is over.
    var removesBodyFileAfterSending = false

    /// Creates a request to send.
    public init(urlRequest: URLRequest, bodyFileURL: URL? = nil) {
        self.urlRequest = urlRequest
        self.bodyFileURL = bodyFileURL
    }
}

extension TransportRequest {
    /// Whether the body can be sent a second time (by a retry or a 307/308 redirect): an input stream is
    /// consumed by the first attempt.
    var canBeSentAgain: Bool { urlRequest.httpBodyStream == nil }

    /// Deletes a body file made for this request only.
    func removeTemporaryBodyFile() {
        guard removesBodyFileAfterSending, let file = bodyFileURL else { return }
        try? FileManager.default.removeItem(at: file)
    }
}
