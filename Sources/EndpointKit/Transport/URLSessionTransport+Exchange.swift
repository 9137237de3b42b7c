import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// One task's exchange as a value: where it stands (``Phase``) and what it received. Each session callback is
    /// one transition that returns what the delegate must do once its lock is released (resume the caller, hand a
    /// chunk to the body, stop the task), as `BodyChannel` and AsyncHTTPClient's `Transaction` do.
    ///
    /// Generic over the caller, so that its transitions are tested with plain values in place of continuations.
    struct Exchange<Caller> {
        /// Where the exchange stands.
        enum Phase {
            /// Sent; the caller waits for the head.
            case awaitingHead(Caller)
            /// The head came; the caller waits for the whole body, collected here up to its limit.
            case collecting(Caller, BodyCollector)
            /// The caller has its answer, or left: a streamed body may still flow to the channel.
            case answered
        }

        /// The head, as it came.
        struct Head {
            var response: HTTPURLResponse
            var headers: HTTPHeaders
            var receivedAt: ContinuousClock.Instant
            /// The body's length as the head announced it, if it did; read once.
            var announcedLength: Int?
        }

        /// A caller to fail, and why: boxed, so that the actions that carry it stay a few words wide (an
        /// `EndpointError` is about 300 bytes, and every action is returned out of the lock).
        final class Failure {
            let caller: Caller
            let error: EndpointError

            init(_ caller: Caller, _ error: EndpointError) {
                self.caller = caller
                self.error = error
            }
        }

        /// What the caller asked for, fixed when the task starts, and what runs when the task is over.
        struct Settings {
            /// Where a streamed body goes; `nil` when the caller reads the whole body, collected here.
            var body: BodyChannel?
            /// Set when the caller reads the whole body: its limit.
            var wholeBodyLimit: Int?
            var isHead: Bool
            /// Whether the deadline still runs once a streamed body's head has been handed over.
            var timeoutCoversBody: Bool
            /// Where a streamed body goes, from its head; see ``ResponseBodyHandling/write(to:)``.
            var bodySink: BodySink?
            var uploadProgress: (@Sendable (Int64, Int64?) -> Void)?
            var idleTimeout: (seconds: TimeInterval, setting: String)
            /// Runs once, when the task is over, whichever way it ends.
            var finished: @Sendable () -> Void
        }

        /// What a head leads to.
        enum HeadAction {
            case none
            /// Answer the caller with the head, its body streaming into `channel` (through `sink`, when given);
            /// stop `deadline`, which no longer covers the body.
            case deliver(
                Caller,
                TransportResponse,
                sink: BodySink?,
                channel: BodyChannel,
                deadline: DeadlineScheduler.Token?
            )
            /// Fail the caller and stop the task.
            case fail(Failure)
        }

        /// What a chunk leads to.
        enum DataAction {
            case none
            case stream(BodyChannel)
            /// Past the caller's limit: fail it and stop the task.
            case tooLarge(Failure)
        }

        /// What the end of the task leads to, in order: the caller's answer, if it still waits; the end of the
        /// streamed body.
        struct Completion {
            var caller: (Caller, Result<TransportResponse, EndpointError>)?
            var body: BodyChannel?
            var bodyFailure: EndpointError?
            /// What runs once the task is over.
            var finished: @Sendable () -> Void
        }

        let settings: Settings
        private(set) var phase: Phase
        private(set) var head: Head?
        /// Whether an authentication challenge was declined, so that the 401 it came with is the answer.
        private(set) var declinedChallenge = false
        private(set) var received = 0
        /// The attempt's deadline, while it runs.
        var deadline: DeadlineScheduler.Token?

        init(caller: Caller, settings: Settings) {
            self.settings = settings
            phase = .awaitingHead(caller)
        }

        /// The caller, while it waits.
        private var caller: Caller? {
            switch phase {
            case .awaitingHead(let caller), .collecting(let caller, _): caller
            case .answered: nil
            }
        }

        /// The caller left (its task was cancelled), the deadline passed, or the server redirected: the caller is
        /// released, and returned so that it can be answered; `nil` when it had its answer already.
        mutating func release() -> Caller? {
            defer { phase = .answered }
            return caller
        }

        /// An authentication challenge was declined.
        mutating func declineChallenge() { declinedChallenge = true }

        /// Takes in the response head, once, while the caller waits.
        mutating func receiveHead(_ response: URLResponse, at now: ContinuousClock.Instant) -> HeadAction {
            guard head == nil, let caller else { return .none }
            guard let http = response as? HTTPURLResponse else {
                phase = .answered
                return .fail(Failure(caller, EndpointError(.transportFailed, "the response is not an HTTP response")))
            }
            // Linux URLSession reports each informational head (103 Early Hints, 100 Continue) before the final
            // one: they are never the answer. A 101 nobody asked for leaves HTTP altogether.
            if (100..<200).contains(http.statusCode) {
                guard http.statusCode == 101 else { return .none }
                phase = .answered
                let headers = URLSessionTransport.headers(of: http)
                return .fail(Failure(caller, URLSessionTransport.switchedProtocols(headers: headers)))
            }
            let headers = URLSessionTransport.headers(of: http)
            let length = headers.announcedBodyLength(statusCode: http.statusCode, isHead: settings.isHead)
            head = Head(
                response: http,
                headers: headers,
                receivedAt: now,
                announcedLength: length.flatMap { Int(exactly: $0) }
            )
            guard let channel = settings.body else { return collect(for: caller) }
            phase = .answered
            let stopped = settings.timeoutCoversBody ? nil : deadline
            if stopped != nil { deadline = nil }
            let response = head?.transportResponse(body: ResponseBody(length: announcedLength, channel: channel))
            guard let response else { return .none }
            return .deliver(caller, response, sink: settings.bodySink, channel: channel, deadline: stopped)
        }

        /// After the head, for a caller that reads the whole body: collects it here before the caller wakes,
        /// unless it is announced too large.
        private mutating func collect(for caller: Caller) -> HeadAction {
            guard let limit = settings.wholeBodyLimit, case .awaitingHead = phase else { return .none }
            do throws(EndpointError) {
                phase = .collecting(caller, try BodyCollector(limit: limit, announced: announcedLength))
                return .none
            } catch {
                phase = .answered
                return .fail(Failure(caller, error))
            }
        }

        /// The body's length as the head announced it, if it did.
        var announcedLength: Int? { head?.announcedLength }

        /// Takes in a chunk of the body: collected for a caller that reads it whole (from its first byte, should
        /// one come before the head), or streamed.
        mutating func receiveData(_ data: Data) -> DataAction {
            received += data.count
            guard let limit = settings.wholeBodyLimit else { return settings.body.map(DataAction.stream) ?? .none }
            var collector: BodyCollector
            let caller: Caller
            switch phase {
            case .collecting(let waiting, let collected): (caller, collector) = (waiting, collected)
            case .awaitingHead(let waiting):
                caller = waiting
                do throws(EndpointError) { collector = try BodyCollector(limit: limit, announced: nil) } catch {
                    phase = .answered
                    return .tooLarge(Failure(caller, error))
                }
            case .answered: return .none
            }
            // Out of the phase while it grows, so that the bytes are not copied.
            phase = .answered
            do throws(EndpointError) {
                try collector.append(data)
                phase = .collecting(caller, collector)
                return .none
            } catch {
                return .tooLarge(Failure(caller, error))
            }
        }

        /// Whether the task's own response is to be taken as its head when it ends (``receiveHead(_:at:)``, which
        /// does nothing once a head came): it ended well, or its 401 is the answer to a declined challenge.
        func takesHeadAtEnd(error: (any Error)?) -> Bool { head == nil && (error == nil || declinedChallenge) }

        /// The task ended, with `error` or without.
        mutating func complete(error: (any Error)?) -> Completion {
            var completion = Completion(body: settings.body, finished: settings.finished)
            let failure = endFailure(error)
            if let waiting = caller {
                completion.caller = (waiting, failure.map { .failure($0) } ?? collectedResponse())
            } else {
                completion.bodyFailure = failure
            }
            phase = .answered
            return completion
        }

        /// Why the task failed, if it did: its error, or a body shorter than announced.
        private func endFailure(_ error: (any Error)?) -> EndpointError? {
            if declinedChallenge, head != nil {
                // The challenge's 401 is the answer; its body, held back for the challenge, is not delivered.
                return nil
            }
            if let error {
                return URLSessionTransport.endpointError(
                    from: error,
                    afterHead: head != nil,
                    idleTimeout: settings.idleTimeout
                )
            }
            if let announced = announcedLength, received < announced {
                return URLSessionTransport.truncated(received: received, announced: announced)
            }
            return nil
        }

        /// The whole response the collecting caller waits for.
        private mutating func collectedResponse() -> Result<TransportResponse, EndpointError> {
            guard let head else {
                return .failure(EndpointError(.transportFailed, "the response is not an HTTP response"))
            }
            var collected = Data()
            if case .collecting(_, var collector) = phase {
                phase = .answered
                collected = collector.take()
            }
            return .success(head.transportResponse(body: ResponseBody(collected)))
        }
    }
}

extension URLSessionTransport.Exchange.Head {
    /// The head as a response with `body`.
    func transportResponse(body: ResponseBody) -> TransportResponse {
        var transportResponse = TransportResponse(
            statusCode: response.statusCode,
            headers: headers,
            url: response.url,
            body: body
        )
        transportResponse.headReceivedAt = receivedAt
        return transportResponse
    }
}
