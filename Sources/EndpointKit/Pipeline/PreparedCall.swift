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
    /// The names the endpoint's kind places credentials under, or `nil` when it declares none.
    var credentialNames: CredentialNames?
    /// The attempt's one deadline, or `nil` for none.
    var timeout: Duration?
    /// The longest wait for a byte, or `nil` for the transport's default.
    var idleTimeout: Duration?
    /// The most bytes of body read into memory: the endpoint's or the client's ``RequestDefaults/maximumResponseSize``.
    var bodyLimit: Int
    /// Whether the endpoint's absolute URL is at another origin than the environment's, so that the first hop,
    /// like a redirect there, goes without credentials.
    var leavesEnvironmentOrigin = false
    /// The route the endpoint's path came from, or `nil` for an endpoint with an absolute URL.
    var route: Route?
    /// A file made for this call only (an assembled multipart body), deleted when the call is over.
    var temporaryBodyFile: URL?

    /// Deletes the body file made for this call only.
    func removeTemporaryBodyFile() {
        guard let file = temporaryBodyFile else { return }
        try? FileManager.default.removeItem(at: file)
    }

    /// Where an endpoint's route comes from: the base URL and the endpoint's path. Kept as parts (two references)
    /// and joined into ``RequestContext/urlTemplate`` only when someone reads it.
    struct Route: Sendable {
        /// The base URL without query or fragment, e.g. `https://api.example.com/v1`.
        var basePrefix: String
        var path: EndpointPath

        /// `/v1/items/{id}`: the base URL's path, then the path's template.
        var template: String? {
            guard let pathTemplate = path.template else { return nil }
            var basePath = ""
            if let scheme = basePrefix.range(of: "://"),
                let slash = basePrefix[scheme.upperBound...].firstIndex(of: "/")
            {
                basePath = String(basePrefix[slash...])
            }
            return basePath + "/" + pathTemplate
        }
    }
}
