import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The session-level delegate: it hands each task's response to its caller, streams or collects the
    /// body, enforces the attempt's deadline, and declines every redirect so the 3xx reaches
    /// ``EndpointClient``, which follows it by its ``RedirectPolicy``.
    ///
    /// Everything goes through the session delegate because Linux URLSession never asks per-task delegates
    /// about redirects, follows redirects by itself for tasks with a completion handler, calls per-task data
    /// callbacks unreliably, and has no `bytes(for:)`.
    final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
        /// One task's state. A class, so the delegate callbacks change it in place under the lock.
        private final class Exchange {
            var caller: CheckedContinuation<TransportResponse, any Error>?
            /// Where a streamed body goes; `nil` when the caller reads the whole body, which is collected here.
            let body: BodyChannel?
            /// Set when the caller reads the whole body: it is collected here and handed over complete.
            let wholeBodyLimit: Int?
            let isHead: Bool
            /// Whether the deadline still runs once a streamed body's head has been handed over.
            let timeoutCoversBody: Bool
            /// Where a streamed body goes, from its head; see ``ResponseBodyHandling/write(to:)``.
            let bodySink: BodySink?
            let uploadProgress: (@Sendable (Int64, Int64?) -> Void)?
            let finished: @Sendable () -> Void
            var response: HTTPURLResponse?
            /// Whether an authentication challenge was declined, so that the 401 it came with is the answer.
            var declinedChallenge = false
            /// The head's headers, converted once.
            var headers = HTTPHeaders()
            var headReceivedAt: ContinuousClock.Instant?
            /// The whole body, collected as it arrives when the caller reads it whole; made when the head arrives.
            var collector: BodyCollector?
            var announcedLength: Int?
            var received = 0
            var deadline: DeadlineScheduler.Token?
            let idleTimeout: (seconds: TimeInterval, setting: String)

            init(
                caller: CheckedContinuation<TransportResponse, any Error>,
                body: BodyChannel?,
                request: TransportRequest,
                options: TransportOptions,
                finished: @escaping @Sendable () -> Void
            ) {
                self.caller = caller
                self.body = body
                isHead = request.method == .head
                switch options.body {
                case .collect(let limit):
                    wholeBodyLimit = limit
                    bodySink = nil
                case .stream:
                    wholeBodyLimit = nil
                    bodySink = nil
                case .write(let sink):
                    wholeBodyLimit = nil
                    bodySink = sink
                }
                timeoutCoversBody = options.timeoutCoversBody
                uploadProgress = options.uploadProgress
                idleTimeout = URLSessionTransport.idleTimeout(of: options)
                self.finished = finished
            }
        }

        private let exchanges = Locked([Int: Exchange]())

        /// Starts `task`, which sends `request`, and returns its response: as soon as the head arrives, with the
        /// body streaming into the response's ``ResponseBody``; or, when the options collect the body, once the
        /// whole body has arrived (one wake-up of the caller instead of two), failing past the limit.
        ///
        /// Cancelling the calling task before it returns releases the caller at once; the task is cancelled
        /// afterwards on a queue of its own. Dropping or leaving a streamed body cancels the task
        /// too. ``TransportOptions/timeout``, when set, fails the exchange with ``EndpointError/Kind/timedOut``
        /// once it passes, the body included. `finished` runs once, when the task is over, whichever way it ends.
        func run(
            _ task: URLSessionTask,
            sending request: TransportRequest,
            options: TransportOptions,
            in session: URLSession,
            finished: @escaping @Sendable () -> Void
        ) async throws -> TransportResponse {
            let timeout = options.timeout
            let id = task.taskIdentifier
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let body: BodyChannel?
                    switch options.body {
                    case .collect: body = nil
                    case .stream(let limit): body = BodyChannel(limit: limit, stop: { Self.stop(task) })
                    case .write: body = BodyChannel(limit: nil, stop: { Self.stop(task) })
                    }
                    let exchange = Exchange(
                        caller: continuation,
                        body: body,
                        request: request,
                        options: options,
                        finished: finished
                    )
                    let registered = exchanges.withLock { exchanges -> Bool in
                        if Task.isCancelled { return false }
                        exchanges[id] = exchange
                        return true
                    }
                    guard registered else {
                        finished()
                        continuation.resume(
                            throwing: EndpointError(.cancelled, "the task was cancelled before sending")
                        )
                        return
                    }
                    if let timeout {
                        // One shared timer for every deadline: nothing wakes up unless one fires.
                        let deadline = DeadlineScheduler.shared.schedule(after: timeout) { [weak self] in
                            self?.expire(task, after: timeout)
                        }
                        exchanges.withLock { _ in exchange.deadline = deadline }
                    }
                    task.resume()
                }
            } onCancel: {
                let caller = exchanges.withLock { exchanges -> CheckedContinuation<TransportResponse, any Error>? in
                    defer { exchanges[id]?.caller = nil }
                    return exchanges[id]?.caller
                }
                caller?.resume(
                    throwing: EndpointError(.cancelled, "the task was cancelled while waiting for the response")
                )
                // Released first, torn down after: cancelling a URLSessionTask can take a while on Linux.
                if caller != nil { Self.stop(task) }
            }
        }

        /// Where tasks are cancelled: never on the session's delegate queue, nor on the caller's thread.
        ///
        /// On Linux, `URLSessionTask.cancel()` called on the delegate queue while its transfer runs fast blocks that
        /// queue until the transfer ends (which a starved cancellation can make the whole body): every chunk
        /// libcurl produces meanwhile waits there in memory. A 1 MiB gzip body inflating to 1 GiB peaked at
        /// 1.17 GB cancelled from the delegate queue, 55 MB cancelled from here. It also takes 1–2 ms, which a
        /// caller being released should not wait for.
        private static let cancellations = DispatchQueue(label: "EndpointKit.URLSessionTransport.cancellations")

        /// Cancels `task` on ``cancellations``.
        private static func stop(_ task: URLSessionTask) {
            cancellations.async { task.cancel() }
        }

        /// The deadline passed: fail whoever waits, then stop the task.
        private func expire(_ task: URLSessionTask, after timeout: Duration) {
            let (caller, body) = exchanges.withLock {
                exchanges -> (CheckedContinuation<TransportResponse, any Error>?, BodyChannel?) in
                guard let exchange = exchanges[task.taskIdentifier] else { return (nil, nil) }
                defer { exchange.caller = nil }
                return (exchange.caller, exchange.body)
            }
            guard caller != nil || body != nil else { return }
            let error = EndpointError.deadlinePassed(timeout)
            caller?.resume(throwing: error)
            body?.finish(throwing: error)
            Self.stop(task)
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            receive(response, for: dataTask)
            completionHandler(.allow)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didSendBodyData bytesSent: Int64,
            totalBytesSent: Int64,
            totalBytesExpectedToSend: Int64
        ) {
            let report = exchanges.withLock { $0[task.taskIdentifier]?.uploadProgress }
            report?(totalBytesSent, totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            enum Action {
                case none
                case stream(BodyChannel)
                case tooLarge(CheckedContinuation<TransportResponse, any Error>, EndpointError)
            }
            let action = exchanges.withLock { exchanges -> Action in
                guard let exchange = exchanges[dataTask.taskIdentifier] else { return .none }
                exchange.received += data.count
                guard let limit = exchange.wholeBodyLimit else { return exchange.body.map(Action.stream) ?? .none }
                guard let caller = exchange.caller else { return .none }
                do throws(EndpointError) {
                    var collector: BodyCollector
                    if let existing = exchange.collector {
                        collector = existing
                    } else {
                        collector = try BodyCollector(limit: limit, announced: nil)
                    }
                    exchange.collector = nil  // out of the exchange while it grows, so that the bytes are not copied
                    try collector.append(data)
                    exchange.collector = collector
                    return .none
                } catch {
                    exchange.caller = nil
                    return .tooLarge(caller, error)
                }
            }
            switch action {
            case .none: break
            case .stream(let body): body.yield(data)
            case .tooLarge(let caller, let error):
                caller.resume(throwing: error)
                Self.stop(dataTask)
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let declined = exchanges.withLock { $0[task.taskIdentifier]?.declinedChallenge == true }
            if error == nil || declined, let response = task.response { receive(response, for: task) }
            guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            if let deadline = exchange.deadline { DeadlineScheduler.shared.cancel(deadline) }
            defer { exchange.finished() }
            let failure: EndpointError?
            if declined, exchange.response != nil {
                // The challenge's 401 is the answer; its body, held back for the challenge, is not delivered.
                failure = nil
            } else if let error {
                failure = URLSessionTransport.endpointError(
                    from: error,
                    afterHead: exchange.response != nil,
                    idleTimeout: exchange.idleTimeout
                )
            } else if let announced = exchange.announcedLength, exchange.received < announced {
                failure = URLSessionTransport.truncated(received: exchange.received, announced: announced)
            } else {
                failure = nil
            }
            if let caller = exchange.caller {
                if let failure {
                    caller.resume(throwing: failure)
                } else if let response = exchange.response {
                    var collected = Self.transportResponse(
                        response,
                        headers: exchange.headers,
                        body: ResponseBody(exchange.collector?.take() ?? Data())
                    )
                    collected.headReceivedAt = exchange.headReceivedAt
                    caller.resume(returning: collected)
                } else {
                    caller.resume(throwing: EndpointError(.transportFailed, "the response is not an HTTP response"))
                }
                exchange.body?.finish(throwing: nil)
            } else {
                exchange.body?.finish(throwing: failure)
            }
        }

        #if canImport(FoundationNetworking)
        /// Declines an HTTP authentication challenge (a 401 or 407 with `WWW-Authenticate: Basic`, …), so that its
        /// response reaches the caller, as it does on Apple platforms: authentication is the kind's and the
        /// middleware's, never the session's. Linux URLSession's default handling with no stored credential
        /// neither retries nor completes the task (swift-corelibs-foundation#5456), so every such request waited
        /// for its deadline. Declining cancels the task; ``urlSession(_:task:didCompleteWithError:)`` then hands
        /// on the response that came with the challenge, without its body, which URLSession held back.
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            exchanges.withLock { $0[task.taskIdentifier]?.declinedChallenge = true }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
        #endif

        /// Hands the 3xx to the caller as the response, and ends the task without answering `completionHandler`.
        ///
        /// Answering it races with a cancellation on Linux: FoundationNetworking stops with a `fatalError` when the
        /// answer reaches a task that was cancelled meanwhile (a deadline, a cancelled caller), which a slow
        /// redirecting server and a short deadline trigger within seconds. Unanswered, the redirect is simply
        /// abandoned when the task, whose transfer is already complete, is cancelled here.
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
            task.cancel()
            guard let exchange else { return }
            if let deadline = exchange.deadline { DeadlineScheduler.shared.cancel(deadline) }
            defer { exchange.finished() }
            exchange.caller?.resume(
                returning: Self.transportResponse(
                    response,
                    headers: URLSessionTransport.headers(of: response),
                    body: ResponseBody()
                )
            )
            exchange.body?.finish(throwing: nil)
        }

        /// What a response head leads to, decided under the lock and carried out after it.
        private enum HeadAction {
            case none
            case deliver(
                CheckedContinuation<TransportResponse, any Error>,
                TransportResponse,
                sink: (
                    provider: @Sendable (Int, HTTPHeaders) -> (@Sendable (Data) throws -> Void)?, channel: BodyChannel
                )?
            )
            case fail(CheckedContinuation<TransportResponse, any Error>, EndpointError)
        }

        /// Takes in `task`'s response head, once: a streaming caller gets it now, a collecting one keeps
        /// waiting unless the announced length already passes its limit.
        private func receive(_ response: URLResponse, for task: URLSessionTask) {
            let action = exchanges.withLock { exchanges -> HeadAction in
                guard let exchange = exchanges[task.taskIdentifier], exchange.response == nil,
                    let caller = exchange.caller
                else { return .none }
                return Self.takeHead(response, into: exchange, caller: caller)
            }
            switch action {
            case .none: break
            case .deliver(let caller, let response, let sink):
                // Asked once, outside the lock (a writer opens a file), and installed before this callback returns,
                // so before the first chunk's callback runs.
                if let sink, let writer = sink.provider(response.statusCode, response.headers) {
                    sink.channel.install(writer)
                }
                caller.resume(returning: response)
            case .fail(let caller, let error):
                caller.resume(throwing: error)
                Self.stop(task)
            }
        }

        /// Records the head in `exchange` (under the lock) and decides what its caller gets.
        private static func takeHead(
            _ response: URLResponse,
            into exchange: Exchange,
            caller: CheckedContinuation<TransportResponse, any Error>
        ) -> HeadAction {
            guard let http = response as? HTTPURLResponse else {
                exchange.caller = nil
                return .fail(caller, EndpointError(.transportFailed, "the response is not an HTTP response"))
            }
            // Linux URLSession reports each informational head (103 Early Hints, 100 Continue) before the final
            // one: they are never the answer. A 101 nobody asked for leaves HTTP altogether.
            if (100..<200).contains(http.statusCode) {
                guard http.statusCode == 101 else { return .none }
                exchange.caller = nil
                return .fail(
                    caller,
                    URLSessionTransport.switchedProtocols(headers: URLSessionTransport.headers(of: http))
                )
            }
            exchange.response = http
            exchange.headReceivedAt = .now
            let headers = URLSessionTransport.headers(of: http)
            exchange.headers = headers
            let length = headers.announcedBodyLength(statusCode: http.statusCode, isHead: exchange.isHead)
                .flatMap { Int(exactly: $0) }
            exchange.announcedLength = length
            guard let body = exchange.body else {
                // The whole body is collected before the caller wakes, unless it is announced too large.
                guard let limit = exchange.wholeBodyLimit else { return .none }
                do throws(EndpointError) {
                    exchange.collector = try BodyCollector(limit: limit, announced: length)
                    return .none
                } catch {
                    exchange.caller = nil
                    return .fail(caller, error)
                }
            }
            exchange.caller = nil
            if !exchange.timeoutCoversBody, let deadline = exchange.deadline {
                DeadlineScheduler.shared.cancel(deadline)
                exchange.deadline = nil
            }
            var streamed = transportResponse(http, headers: headers, body: ResponseBody(length: length, channel: body))
            streamed.headReceivedAt = exchange.headReceivedAt
            return .deliver(caller, streamed, sink: exchange.bodySink.map { ($0.open, body) })
        }

        private static func transportResponse(_ http: HTTPURLResponse, headers: HTTPHeaders, body: ResponseBody)
            -> TransportResponse
        {
            TransportResponse(
                statusCode: http.statusCode,
                headers: headers,
                url: http.url,
                body: body
            )
        }
    }
}
