import Foundation

/// A Server-Sent Events stream that reconnects: an `AsyncSequence` of ``ServerSentEvent``s that sends nothing
/// until it is iterated.
///
///     for try await event in try await client.stream(for: .notifications, using: token) where event.type == "mention" {
///         show(event.data)
///     }
///
/// When the connection ends or fails (a cut, a transient error, the idle timeout), it reconnects after the
/// server's last `retry` delay (or ``ReconnectPolicy/defaultDelay``), sending `Last-Event-ID` when the stream
/// set one (the ID of the last event block that ended: an event cut off by the connection does not count), so the
/// server can resume. It stops reconnecting after ``ReconnectPolicy/maxAttempts`` attempts in a
/// row without an event, when the server answers `204 No Content`, or on any error that sending again would not
/// fix (a 4xx, a decoding error). Leaving the loop, or cancelling the task, stops it.
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// How a stream reconnects.
    public struct ReconnectPolicy: Sendable {
        /// The delay before reconnecting when the server set none with `retry`.
        public var defaultDelay: Duration
        /// The longest delay honoured, whatever the server asks.
        public var maxDelay: Duration
        /// How many connections in a row may end without delivering an event before the stream fails.
        public var maxAttempts: Int

        /// Creates a policy: 3 s by default, at most 60 s, and 5 attempts without an event.
        public init(defaultDelay: Duration = .seconds(3), maxDelay: Duration = .seconds(60), maxAttempts: Int = 5) {
            self.defaultDelay = defaultDelay
            self.maxDelay = maxDelay
            self.maxAttempts = Swift.max(1, maxAttempts)
        }

        /// The wait before reconnecting: what the server asked for with `retry` (or ``defaultDelay``), at most
        /// ``maxDelay``.
        func delay(afterServerAsked asked: Duration?) -> Duration {
            Swift.min(asked ?? defaultDelay, maxDelay)
        }
    }

    /// Events fail with ``EndpointError`` only.
    public typealias Failure = EndpointError

    let connect: @Sendable (_ lastEventID: String?) async throws(EndpointError) -> StreamedResponse
    let policy: ReconnectPolicy
    let clock: any Clock<Duration>

    /// Starts the stream.
    public func makeAsyncIterator() -> Iterator { Iterator(stream: self) }

    /// Reads events, reconnecting as the policy allows.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: ServerSentEvents
        var lines: LineSequence.Iterator?
        var parser = ServerSentEventParser()
        var attemptsWithoutEvent = 0
        var hasConnected = false
        var isDone = false

        init(stream: ServerSentEvents) { self.stream = stream }

        /// The next event, or `nil` when the server ended the stream for good (`204`).
        public mutating func next() async throws(EndpointError) -> ServerSentEvent? {
            while !isDone {
                if lines == nil {
                    guard let opened = try await open() else {
                        isDone = true
                        return nil
                    }
                    lines = opened
                }
                do throws(EndpointError) {
                    guard let line = try await lines?.next() else {
                        lines = nil
                        continue
                    }
                    let event: ServerSentEvent?
                    do throws(EndpointError) {
                        event = try parser.take(line)
                    } catch {
                        throw lines?.chunks.named(error) ?? error
                    }
                    if let event {
                        attemptsWithoutEvent = 0
                        return event
                    }
                } catch  where error.kind == .cancelled || Task.isCancelled {
                    throw error
                } catch  where error.isTransient || error.kind == .timedOut {
                    lines = nil
                }
            }
            return nil
        }

        /// Connects, after the reconnection delay when this is not the first connection; `nil` on a `204`.
        private mutating func open() async throws(EndpointError) -> LineSequence.Iterator? {
            while true {
                if hasConnected {
                    guard attemptsWithoutEvent < stream.policy.maxAttempts else {
                        throw EndpointError(
                            .transportFailed,
                            "the event stream ended \(attemptsWithoutEvent) times in a row without an event",
                            isTransient: true
                        )
                    }
                    let wait = stream.policy.delay(afterServerAsked: parser.reconnectionDelay)
                    do {
                        try await stream.clock.sleep(for: wait)
                    } catch {
                        throw EndpointError(
                            .cancelled,
                            "the task was cancelled while the event stream waited to reconnect"
                        )
                    }
                }
                hasConnected = true
                attemptsWithoutEvent += 1
                do throws(EndpointError) {
                    let response = try await stream.connect(parser.lastEventID)
                    if response.statusCode == 204 { return nil }
                    parser = ServerSentEventParser(continuing: parser)
                    return LineSequence(response.body, splitsAtCarriageReturn: true).makeAsyncIterator()
                } catch  where error.isTransient || error.kind == .timedOut {
                    continue
                }
            }
        }
    }
}
