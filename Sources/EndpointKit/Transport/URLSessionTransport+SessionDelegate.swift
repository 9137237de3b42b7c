import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The session-level delegate: it collects each task's body, enforcing the size limit as bytes arrive, and
    /// declines every redirect so the 3xx reaches ``EndpointClient``, which follows it by its
    /// ``RedirectPolicy``.
    ///
    /// Everything goes through the session delegate because Linux URLSession never asks per-task delegates
    /// about redirects and calls their data callbacks unreliably; and bodies are counted here because
    /// `data(for:)` buffers without limit.
    final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
        /// One task's state. A class, so that appending to `body` in place never copies what arrived so far.
        private final class Exchange {
            let continuation: CheckedContinuation<(Data, URLResponse), any Error>
            let limit: Int?
            var response: URLResponse?
            var body = Data()
            var exceededLimit = false

            init(continuation: CheckedContinuation<(Data, URLResponse), any Error>, limit: Int?) {
                self.continuation = continuation
                self.limit = limit
            }
        }

        private let exchanges = Locked([Int: Exchange]())

        /// Starts `task` and returns its body and response; cancelling the calling task cancels it.
        ///
        /// Whichever comes first, cancellation or completion, resumes the continuation: a task cancelled before
        /// it was resumed may never report completion on Linux.
        func run(_ task: URLSessionTask, limit: Int?) async throws -> (Data, URLResponse) {
            let id = task.taskIdentifier
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let registered = exchanges.withLock { exchanges -> Bool in
                        if Task.isCancelled { return false }
                        exchanges[id] = Exchange(continuation: continuation, limit: limit)
                        return true
                    }
                    if registered {
                        task.resume()
                    } else {
                        continuation.resume(throwing: URLError(.cancelled))
                    }
                }
            } onCancel: {
                let exchange = exchanges.withLock { $0.removeValue(forKey: id) }
                task.cancel()
                exchange?.continuation.resume(throwing: URLError(.cancelled))
            }
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            exchanges.withLock { $0[dataTask.taskIdentifier]?.response = response }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let exceeded = exchanges.withLock { exchanges -> Bool in
                guard let exchange = exchanges[dataTask.taskIdentifier], !exchange.exceededLimit else { return false }
                if let limit = exchange.limit, exchange.body.count + data.count > limit {
                    exchange.exceededLimit = true
                    exchange.body = Data()
                    return true
                }
                exchange.body.append(data)
                return false
            }
            // A disposition of .cancel is ignored on Linux; cancelling the task is what stops the transfer.
            if exceeded { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            if exchange.exceededLimit {
                exchange.continuation.resume(throwing: ResponseTooLargeError(limit: exchange.limit ?? 0))
            } else if let error {
                exchange.continuation.resume(throwing: error)
            } else if let response = exchange.response ?? task.response {
                exchange.continuation.resume(returning: (exchange.body, response))
            } else {
                exchange.continuation.resume(throwing: URLError(.badServerResponse))
            }
        }

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

    /// Thrown when a response body passes ``URLSessionTransport/maximumResponseSize``.
    struct ResponseTooLargeError: Error, CustomStringConvertible {
        var limit: Int
        var description: String { "the response body is larger than the limit of \(limit) bytes" }
    }
}
