import EndpointKit
import Foundation
import Testing

/// The loopback servers `scripts/test.sh` starts; a missing variable fails the test with how to start them.
enum TestServers {
    static func url(_ variable: String) throws -> URL {
        let value = try #require(
            ProcessInfo.processInfo.environment[variable],
            "\(variable) is not set: run the integration tests through scripts/test.sh, which starts httpbin and nginx"
        )
        return try #require(URL(string: value), "\(variable) is not a URL: \(value)")
    }

    /// httpbin under gunicorn.
    static func httpbin() throws -> URL { try url("ENDPOINTKIT_HTTPBIN_URL") }
    /// nginx serving static files, among them `item.json` = `{"result": {"id": 7, "name": "static"}}`.
    static func nginx() throws -> URL { try url("ENDPOINTKIT_NGINX_URL") }
    /// nginx answering every request with `METHOD request-target`, exactly as received.
    static func echo() throws -> URL { try url("ENDPOINTKIT_ECHO_URL") }
    /// scripts/fault-server.py: truncated bodies, held requests, and a count of what arrived per path.
    static func fault() throws -> URL { try url("ENDPOINTKIT_FAULT_URL") }
    /// nginx over https with a certificate from the run's test CA, which `scripts/with-test-ca.sh` makes trusted:
    /// the static files, `/authorization` echoing that header, and 302s at `/to-http`, `/to-https` and
    /// `/to-untrusted`.
    static func https() throws -> URL { try url("ENDPOINTKIT_HTTPS_URL") }
    /// nginx over https with a certificate from a CA nobody trusts, serving the static files.
    static func untrustedHTTPS() throws -> URL { try url("ENDPOINTKIT_UNTRUSTED_HTTPS_URL") }

    /// A client for httpbin through a fresh `URLSessionTransport`.
    static func httpbinClient(envelope: ResponseEnvelope = .plain) throws -> EndpointClient {
        EndpointClient(environment: ServerEnvironment(baseURL: try httpbin()), envelope: envelope)
    }
}

extension TransportResponse {
    /// The body of a response the client already read in full (as `rawResponse(for:)` does).
    var bytes: Data { body.bufferedData ?? Data() }
}
