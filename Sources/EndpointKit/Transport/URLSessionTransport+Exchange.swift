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
            case fail(Caller, EndpointError)
        }

        /// What a chunk leads to.
        enum DataAction {
            case none
            case stream(BodyChannel)
            /// Past the caller's limit: fail it and stop the task.
            case tooLarge(Caller, EndpointError)
        }

        /// What the end of the task leads to, in order: a head no callback reported; the caller's answer, if it
        /// still waits; the end of the streamed body.
        struct Completion {
            var head = HeadAction.none
            var caller: (Caller, Result<TransportResponse, EndpointError>)?
            var body: BodyChannel?
            var bodyFailure: EndpointError?
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
                return .fail(caller, EndpointError(.transportFailed, "the response is not an HTTP response"))
            }
            // Linux URLSession reports each informational head (103 Early Hints, 100 Continue) before the final
            // one: they are never the answer. A 101 nobody asked for leaves HTTP altogether.
            if (100..<200).contains(http.statusCode) {
                guard http.statusCode == 101 else { return .none }
                phase = .answered
                let headers = URLSessionTransport.headers(of: http)
                return .fail(caller, URLSessionTransport.switchedProtocols(headers: headers))
            }
            head = Head(response: http, headers: URLSessionTransport.headers(of: http), receivedAt: now)
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
                return .fail(caller, error)
            }
        }

        /// The body's length as the head announced it, if it did.
        var announcedLength: Int? {
            guard let head else { return nil }
            return head.headers.announcedBodyLength(statusCode: head.response.statusCode, isHead: settings.isHead)
                .flatMap { Int(exactly: $0) }
        }

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
                    return .tooLarge(caller, error)
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
                return .tooLarge(caller, error)
            }
        }

        /// The task ended, with `error` or without; `response` is the task's, for a head no callback reported.
        mutating func complete(error: (any Error)?, response: URLResponse?, at now: ContinuousClock.Instant)
            -> Completion
        {
            var completion = Completion(body: settings.body)
            if error == nil || declinedChallenge, let response {
                completion.head = receiveHead(response, at: now)
                if case .fail = completion.head { return completion }
            }
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
