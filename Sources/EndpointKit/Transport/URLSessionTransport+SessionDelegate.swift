import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The session-level delegate, the only place Linux URLSession asks about redirects: it declines every
    /// one, so the 3xx reaches ``EndpointClient``, which follows it by its ``RedirectPolicy``. URLSession's own
    /// following would forward `Authorization` to any host and, on Linux, re-send 307/308 bodies empty.
    final class SessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }
}
