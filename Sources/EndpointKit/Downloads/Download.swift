import Foundation

/// A download to a file, as an `AsyncSequence` of its events: progress as the body arrives, then the finished
/// file. Nothing is sent until it is iterated; leaving the loop or cancelling the task stops the transfer and
/// keeps what arrived for the next attempt to resume.
///
///     for try await event in client.download(for: .asset(id), to: destination) {
///         switch event {
///         case .progress(let progress): bar.show(progress.fractionCompleted ?? 0)
///         case .finished(let response): print("saved to", response.value.path)
///         }
///     }
///
/// ``result()`` waits for the file without looking at progress. See ``EndpointClient/download(for:using:to:)``.
public struct Download: AsyncSequence, Sendable {
    /// One step of a download.
    public enum Event: Sendable {
        /// More of the body was written to the file.
        case progress(DownloadProgress)
        /// The file is complete and in place: the response's value is its URL.
        case finished(Response<URL>)
    }

    /// The event type.
    public typealias Element = Event
    /// Downloads fail with ``EndpointError`` only.
    public typealias Failure = EndpointError

    /// The events of one download; iterating starts it.
    public struct Iterator: AsyncIteratorProtocol {
        var events: AsyncThrowingStream<Event, any Error>.Iterator

        /// The next event, or `nil` after ``Event/finished(_:)``.
        public mutating func next() async throws(EndpointError) -> Event? {
            try await next(isolation: nil)
        }

        /// The next event, or `nil` after ``Event/finished(_:)``.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(EndpointError) -> Event? {
            do {
                return try await events.next(isolation: actor)
            } catch {
                throw EndpointError.wrapping(error)
            }
        }
    }

    let run: @Sendable (_ report: @escaping @Sendable (DownloadProgress) -> Void) async throws -> Response<URL>

    /// Starts the download and returns an iterator over its events.
    public func makeAsyncIterator() -> Iterator {
        // A reader that falls behind skips progress it had no time to show, never the last: the final progress
        // (at the total) and `.finished` are the two newest events, and both are kept.
        let (stream, continuation) = AsyncThrowingStream<Event, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(2)
        )
        let run = self.run
        // Ended through `onTermination` when the reader leaves, and it finishes the stream itself otherwise.
        let task = Task {
            do {
                let response = try await run { continuation.yield(.progress($0)) }
                continuation.yield(.finished(response))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return Iterator(events: stream.makeAsyncIterator())
    }

    /// Downloads the file and returns its response, without reporting progress.
    ///
    /// - Throws: ``EndpointError``.
    public func result() async throws(EndpointError) -> Response<URL> {
        do {
            return try await run { _ in }
        } catch {
            throw EndpointError.wrapping(error)
        }
    }
}

/// How far a download has come.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes of the file written so far, those of an earlier attempt that this one resumed included.
    public var bytesWritten: Int64
    /// The file's size, when the server said it; `nil` otherwise.
    public var expectedBytes: Int64?
    /// Bytes an earlier attempt had written, which this one did not download again.
    public var resumedFrom: Int64

    /// Creates a progress value.
    public init(bytesWritten: Int64, expectedBytes: Int64?, resumedFrom: Int64 = 0) {
        self.bytesWritten = bytesWritten
        self.expectedBytes = expectedBytes
        self.resumedFrom = resumedFrom
    }

    /// `bytesWritten / expectedBytes`, from 0 to 1, or `nil` when the size is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(bytesWritten) / Double(expectedBytes))
    }
}
