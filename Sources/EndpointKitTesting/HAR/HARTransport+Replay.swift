import EndpointKit
import Foundation

extension HARTransport {
    /// A recorded entry as a response, its body given as `options` ask: whole (up to the limit), to the sink, or
    /// streamed in chunks.
    func replay(_ entry: HARArchive.Entry, options: TransportOptions, summary: RequestSummary) throws
        -> TransportResponse
    {
        let headers = HTTPHeaders(entry.response.headers.map { .init(name: .init($0.name), value: $0.value) })
        let status = entry.response.status
        if case .collect(let limit) = options.body, entry.response.content.size > limit {
            throw EndpointError(
                .responseTooLarge,
                "the recorded body of \(entry.response.content.size) bytes is over the limit of \(limit)",
                request: summary,
                statusCode: status
            )
        }
        let body = try recordedBody(of: entry, summary: summary)
        let chunks = ReplayedChunks.split(body, as: entry.response.content._chunks)
        switch options.body {
        case .collect(let limit):
            guard body.count <= limit else {
                throw EndpointError(
                    .responseTooLarge,
                    "the recorded body of \(body.count) bytes is over the limit of \(limit)",
                    request: summary,
                    statusCode: status
                )
            }
            return TransportResponse(statusCode: status, headers: headers, data: body)
        case .write, .stream:
            // A body meant for a sink streams instead, as the transport contract allows: the client writes it, after
            // the head, as it would have arrived.
            return TransportResponse(statusCode: status, headers: headers, body: ReplayedChunks.body(chunks))
        }
    }

    /// The error a recorded failure replays as. A request that was cancelled before its head waits, as it did, until
    /// its task is cancelled (or as long as it waited when recorded, at least 10 s).
    func replay(_ failure: HARArchive.Failure, summary: RequestSummary) async -> EndpointError {
        let kind = EndpointError.Kind(failure.error)
        if kind == .cancelled {
            let wait = Duration.milliseconds(max(10_000, Int(failure.time)))
            try? await Task.sleep(for: wait)
            return EndpointError(.cancelled, "\(summary) was cancelled before its head, as when it was recorded")
        }
        return EndpointError(
            kind,
            "\(summary) failed with \(kind) when it was recorded",
            request: summary,
            isTransient: kind == .transportFailed
        )
    }

    /// The bytes an entry recorded; an error when its body was too large to keep.
    private func recordedBody(of entry: HARArchive.Entry, summary: RequestSummary) throws -> Data {
        let content = entry.response.content
        guard let text = content.text else {
            guard content.size == 0 else {
                throw EndpointError(
                    .notRecorded,
                    "its recorded answer holds none of its body's \(content.size) bytes: "
                        + (content.comment ?? "they were not kept"),
                    request: summary
                )
            }
            return Data()
        }
        if content.encoding == "base64" { return Data(base64Encoded: text) ?? Data() }
        return Data(text.utf8)
    }
}

/// A replayed body, in chunks of at most 16 KiB, and in two at least, as a body that streams from a server comes.
struct ReplayedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: [Data]

    /// `data` in the chunks it was recorded in, or, without a record of them, in chunks of at most 16 KiB and
    /// two at least.
    static func split(_ data: Data, as sizes: [Int]? = nil) -> [Data] {
        if let sizes, sizes.allSatisfy({ $0 >= 0 }), sizes.reduce(0, +) <= data.count {
            var offset = data.startIndex
            var chunks = sizes.map { size -> Data in
                defer { offset += size }
                return Data(data[offset..<offset + size])
            }
            if offset < data.endIndex { chunks.append(Data(data[offset...])) }
            return chunks
        }
        guard data.count > 1 else { return data.isEmpty ? [] : [data] }
        let size = Swift.min(16 * 1024, (data.count + 1) / 2)
        return stride(from: 0, to: data.count, by: size).map { Data(data[$0..<Swift.min($0 + size, data.count)]) }
    }

    static func body(_ chunks: [Data]) -> ResponseBody {
        ResponseBody(length: chunks.reduce(0) { $0 + $1.count }, pulling: ReplayedChunks(chunks: chunks))
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Data>
        mutating func next() async throws -> Data? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks[...]) }
}
