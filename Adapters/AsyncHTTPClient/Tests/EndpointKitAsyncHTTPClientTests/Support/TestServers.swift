#if AsyncHTTPClient
import EndpointKit
import EndpointKitAsyncHTTPClient
import Foundation
import Testing

/// The loopback servers the root package's `scripts/test-servers.sh` starts (`scripts/test.sh` runs these tests
/// with them); a missing variable fails the test with how to start them.
enum TestServers {
    static func url(_ variable: String) throws -> URL {
        let value = try #require(
            ProcessInfo.processInfo.environment[variable],
            "\(variable) is not set: run these tests through the root package's scripts/test.sh, which starts the servers"
        )
        return try #require(URL(string: value), "\(variable) is not a URL: \(value)")
    }

    /// httpbin under gunicorn.
    static func httpbin() throws -> URL { try url("ENDPOINTKIT_HTTPBIN_URL") }
    /// nginx serving static files.
    static func nginx() throws -> URL { try url("ENDPOINTKIT_NGINX_URL") }
    /// nginx answering every request with `METHOD request-target`, exactly as received.
    static func echo() throws -> URL { try url("ENDPOINTKIT_ECHO_URL") }
    /// The root package's scripts/fault-server.py.
    static func fault() throws -> URL { try url("ENDPOINTKIT_FAULT_URL") }
    /// nginx over https with a certificate from the run's test CA, trusted for the test run.
    static func https() throws -> URL { try url("ENDPOINTKIT_HTTPS_URL") }
    /// nginx speaking HTTP/2 over TLS (by ALPN), with the trusted test CA's certificate.
    static func http2() throws -> URL { try url("ENDPOINTKIT_HTTP2_URL") }
    /// nginx over https with a certificate from a CA nobody trusts.
    static func untrustedHTTPS() throws -> URL { try url("ENDPOINTKIT_UNTRUSTED_HTTPS_URL") }

    /// A client for `baseURL` through `transport`.
    static func client(_ baseURL: URL, _ transport: AsyncHTTPClientTransport) -> EndpointClient {
        EndpointClient(environment: ServerEnvironment(baseURL: baseURL), transport: transport)
    }
}
#endif
