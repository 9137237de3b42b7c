import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The session-level delegate: it hands each task's response head to the caller as soon as it arrives,
    /// streams the body into the caller's ``ResponseBody``, and declines every redirect so the 3xx reaches
    /// ``EndpointClient``, which follows it by its ``RedirectPolicy``.
    ///
    /// Everything goes through the session delegate because Linux URLSession never asks per-task delegates
    /// about redirects, calls their data callbacks unreliably, and has no `bytes(for:)`.
    final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
        /// One task's state. A class, so the delegate callbacks change it in place under the lock.
        private final class Exchange {
            var head: CheckedContinuation<TransportResponse, any Error>?
            let body: AsyncThrowingStream<Data, any Error>.Continuation
            /// Held only until the head is delivered, so that a reader dropping the body ends the stream.
            var stream: AsyncThrowingStream<Data, any Error>?
            let finished: @Sendable () -> Void
            var announcedLength: Int?
            var received = 0

            init(
                head: CheckedContinuation<TransportResponse, any Error>,
                finished: @escaping @Sendable () -> Void
            ) {
                self.head = head
                let (stream, body) = AsyncThrowingStream<Data, any Error>.makeStream()
                self.stream = stream
                self.body = body
                self.finished = finished
            }
        }

        private let exchanges = Locked([Int: Exchange]())

        /// Starts `task` and returns its response head; its body streams into the response's ``ResponseBody``.
        ///
        /// Cancelling the calling task before the head arrives releases the caller at once; the task is cancelled
        /// afterwards on the session's delegate queue. Dropping or leaving the body cancels the task too.
        /// `finished` runs once, when the task is over, whichever way it ends.
        func run(_ task: URLSessionTask, in session: URLSession, finished: @escaping @Sendable () -> Void)
            async throws -> TransportResponse
        {
            let id = task.taskIdentifier
            let queue = session.delegateQueue
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let exchange = Exchange(head: continuation, finished: finished)
                    exchange.body.onTermination = { termination in
                        if case .cancelled = termination { queue.addOperation { task.cancel() } }
                    }
                    let registered = exchanges.withLock { exchanges -> Bool in
                        if Task.isCancelled { return false }
                        exchanges[id] = exchange
                        return true
                    }
                    if registered {
                        task.resume()
                    } else {
                        finished()
                        continuation.resume(
                            throwing: EndpointError(.cancelled, "the task was cancelled before sending")
                        )
                    }
                }
            } onCancel: {
                let head = exchanges.withLock { exchanges -> CheckedContinuation<TransportResponse, any Error>? in
                    defer { exchanges[id]?.head = nil }
                    return exchanges[id]?.head
                }
                head?.resume(
                    throwing: EndpointError(.cancelled, "the task was cancelled while waiting for the response")
                )
                // Released first, torn down after: cancelling a URLSessionTask can take a while on Linux.
                if head != nil { queue.addOperation { task.cancel() } }
            }
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            deliverHead(response, for: dataTask)
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let body = exchanges.withLock { exchanges -> AsyncThrowingStream<Data, any Error>.Continuation? in
                guard let exchange = exchanges[dataTask.taskIdentifier] else { return nil }
                exchange.received += data.count
                return exchange.body
            }
            body?.yield(data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            if error == nil, let response = task.response { deliverHead(response, for: task) }
            guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            defer { exchange.finished() }
            if let head = exchange.head {
                head.resume(throwing: URLSessionTransport.endpointError(from: error, afterHead: false))
                exchange.body.finish()
            } else if let error {
                exchange.body.finish(throwing: URLSessionTransport.endpointError(from: error, afterHead: true))
            } else if let announced = exchange.announcedLength, exchange.received < announced {
                exchange.body.finish(
                    throwing: URLSessionTransport.truncated(received: exchange.received, announced: announced)
                )
            } else {
                exchange.body.finish()
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

        /// Resumes the caller waiting for `task`'s head, once.
        private func deliverHead(_ response: URLResponse, for task: URLSessionTask) {
            let delivery = exchanges.withLock {
                exchanges -> (
                    CheckedContinuation<TransportResponse, any Error>, AsyncThrowingStream<Data, any Error>, Int?
                )? in
                guard let exchange = exchanges[task.taskIdentifier], let head = exchange.head,
                    let stream = exchange.stream
                else { return nil }
                exchange.head = nil
                exchange.stream = nil
                if let http = response as? HTTPURLResponse {
                    exchange.announcedLength = URLSessionTransport.announcedLength(of: http, for: task)
                }
                return (head, stream, exchange.announcedLength)
            }
            guard let (head, stream, length) = delivery else { return }
            guard let http = response as? HTTPURLResponse else {
                head.resume(throwing: EndpointError(.transportFailed, "the response is not an HTTP response"))
                return
            }
            head.resume(
                returning: TransportResponse(
                    statusCode: http.statusCode,
                    headers: URLSessionTransport.headers(of: http),
                    url: http.url,
                    body: ResponseBody(length: length, chunks: stream)
                )
            )
        }
    }
}
