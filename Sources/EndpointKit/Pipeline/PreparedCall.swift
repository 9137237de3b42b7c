import Foundation

/// One call as the engine takes it: the request an endpoint's kind prepared, and what the endpoint and the client
/// settings decided about sending it. Internal: middleware see only the ``TransportRequest``.
struct PreparedCall: Sendable {
    /// The request before middleware.
    var request: TransportRequest
    /// The endpoint's options.
    var options: RequestOptions
    /// Whether the endpoint's kind needs credentials from a middleware.
    var requiresAuthentication: Bool
    /// The attempt's one deadline, or `nil` for none.
    var timeout: Duration?
    /// The longest wait for a byte, or `nil` for the transport's default.
    var idleTimeout: Duration?
    /// The most bytes of body read into memory: the endpoint's or the client's ``RequestDefaults/maximumResponseSize``.
    var bodyLimit: Int
    /// Whether the endpoint's absolute URL is at another origin than the environment's, so that the first hop,
    /// like a redirect there, goes without credentials.
    var leavesEnvironmentOrigin = false
    /// A file made for this call only (an assembled multipart body), deleted when the call is over.
    var temporaryBodyFile: URL?

    /// Deletes the body file made for this call only.
    func removeTemporaryBodyFile() {
        guard let file = temporaryBodyFile else { return }
        try? FileManager.default.removeItem(at: file)
    }
}
