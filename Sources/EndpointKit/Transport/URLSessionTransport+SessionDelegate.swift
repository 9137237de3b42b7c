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
        typealias Caller = CheckedContinuation<TransportResponse, any Error>

        /// A running task's exchange, changed in place by its transitions. A box, so that the table moves a
        /// reference and not the exchange (measured: about 7k instructions a call less than a table of values).
        private final class Slot {
            var exchange: Exchange<Caller>

            init(caller: Caller, settings: Exchange<Caller>.Settings) {
                exchange = Exchange(caller: caller, settings: settings)
            }
        }

        /// Each running task's exchange, by task identifier.
        private let exchanges = Locked([Int: Slot]())

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
                    let slot = Slot(
                        caller: continuation,
                        settings: Self.settings(for: request, options: options, body: body, finished: finished)
                    )
                    let registered = exchanges.withLock { exchanges -> Bool in
                        if Task.isCancelled { return false }
                        exchanges[id] = slot
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
                        exchanges.withLock { $0[id]?.exchange.deadline = deadline }
                    }
                    task.resume()
                }
            } onCancel: {
                let caller = exchanges.withLock { $0[id]?.exchange.release() }
                caller?.resume(
                    throwing: EndpointError(.cancelled, "the task was cancelled while waiting for the response")
                )
                // Released first, torn down after: cancelling a URLSessionTask can take a while on Linux.
                if caller != nil { Self.stop(task) }
            }
        }

        /// What the exchange of `request` keeps of it and of `options`.
        private static func settings(
            for request: TransportRequest,
            options: TransportOptions,
            body: BodyChannel?,
            finished: @escaping @Sendable () -> Void
        ) -> Exchange<Caller>.Settings {
            var settings = Exchange<Caller>.Settings(
                body: body,
                isHead: request.method == .head,
                timeoutCoversBody: options.timeoutCoversBody,
                uploadProgress: options.uploadProgress,
                idleTimeout: URLSessionTransport.idleTimeout(of: options),
                finished: finished
            )
            switch options.body {
            case .collect(let limit): settings.wholeBodyLimit = limit
            case .stream: break
            case .write(let sink): settings.bodySink = sink
            }
            return settings
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
            let (caller, body) = exchanges.withLock { exchanges -> (Caller?, BodyChannel?) in
                guard let slot = exchanges[task.taskIdentifier] else { return (nil, nil) }
                return (slot.exchange.release(), slot.exchange.settings.body)
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
            let report = exchanges.withLock { $0[task.taskIdentifier]?.exchange.settings.uploadProgress }
            report?(totalBytesSent, totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let action = exchanges.withLock { $0[dataTask.taskIdentifier]?.exchange.receiveData(data) }
            switch action {
            case .none?, nil: break
            case .stream(let body)?: body.yield(data)
            case .tooLarge(let failure)?:
                failure.caller.resume(throwing: failure.error)
                Self.stop(dataTask)
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let id = task.taskIdentifier
            // A head no callback reported (Linux does that for some answers): the task's own response, first.
            if exchanges.withLock({ $0[id]?.exchange.takesHeadAtEnd(error: error) == true }),
                let response = task.response
            {
                receive(response, for: task)
            }
            typealias Ended = (completion: Exchange<Caller>.Completion, deadline: DeadlineScheduler.Token?)
            let ended = exchanges.withLock { exchanges -> Ended? in
                guard let slot = exchanges.removeValue(forKey: id) else { return nil }
                return (slot.exchange.complete(error: error), slot.exchange.deadline)
            }
            guard let (completion, deadline) = ended else { return }
            if let deadline { DeadlineScheduler.shared.cancel(deadline) }
            defer { completion.finished() }
            switch completion.caller {
            case (let caller, .success(let response))?: caller.resume(returning: response)
            case (let caller, .failure(let failure))?: caller.resume(throwing: failure)
            case nil: break
            }
            completion.body?.finish(throwing: completion.bodyFailure)
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
            exchanges.withLock { $0[task.taskIdentifier]?.exchange.declineChallenge() }
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
            typealias Released = (
                caller: Caller?, settings: Exchange<Caller>.Settings, deadline: DeadlineScheduler.Token?
            )
            let released = exchanges.withLock { exchanges -> Released? in
                guard let slot = exchanges.removeValue(forKey: task.taskIdentifier) else { return nil }
                return (slot.exchange.release(), slot.exchange.settings, slot.exchange.deadline)
            }
            task.cancel()
            guard let (caller, settings, deadline) = released else { return }
            if let deadline { DeadlineScheduler.shared.cancel(deadline) }
            defer { settings.finished() }
            caller?.resume(
                returning: TransportResponse(
                    statusCode: response.statusCode,
                    headers: URLSessionTransport.headers(of: response),
                    url: response.url,
                    body: ResponseBody()
                )
            )
            settings.body?.finish(throwing: nil)
        }

        /// Takes in `task`'s response head, once: a streaming caller gets it now, a collecting one keeps
        /// waiting unless the announced length already passes its limit.
        private func receive(_ response: URLResponse, for task: URLSessionTask) {
            let action = exchanges.withLock { $0[task.taskIdentifier]?.exchange.receiveHead(response, at: .now) }
            carryOut(action ?? .none, for: task)
        }

        /// Carries out what a head led to, outside the lock.
        private func carryOut(_ action: Exchange<Caller>.HeadAction, for task: URLSessionTask) {
            switch action {
            case .none: break
            case .deliver(let caller, let response, let sink, let channel, let deadline):
                if let deadline { DeadlineScheduler.shared.cancel(deadline) }
                // Asked once, outside the lock (a writer opens a file), and installed before this callback returns,
                // so before the first chunk's callback runs.
                if let sink, let writer = sink.open(response.statusCode, response.headers) { channel.install(writer) }
                caller.resume(returning: response)
            case .fail(let failure):
                failure.caller.resume(throwing: failure.error)
                Self.stop(task)
            }
        }
    }
}
