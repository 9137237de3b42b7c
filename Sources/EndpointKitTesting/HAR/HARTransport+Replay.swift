import EndpointKit
import Foundation

extension HARTransport {
    /// A recorded entry as a response, its body given as `options` ask: whole (up to the limit), to the sink, or
    /// streamed in chunks.
    func replay(_ entry: HARArchive.Entry, options: TransportOptions, summary: RequestSummary) throws
        -> TransportResponse
    {
        let body = try recordedBody(of: entry, summary: summary)
        let headers = HTTPHeaders(entry.response.headers.map { .init(name: .init($0.name), value: $0.value) })
        let status = entry.response.status
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
        case .write(let sink):
            if let writer = sink.writer(statusCode: status, headers: headers) {
                for chunk in ReplayedChunks.split(body) { try writer(chunk) }
                return TransportResponse(statusCode: status, headers: headers)
            }
            return TransportResponse(statusCode: status, headers: headers, body: ReplayedChunks.body(body))
        case .stream:
            return TransportResponse(statusCode: status, headers: headers, body: ReplayedChunks.body(body))
        }
    }

    /// The bytes an entry recorded; an error when its body was too large to keep.
    private func recordedBody(of entry: HARArchive.Entry, summary: RequestSummary) throws -> Data {
        let content = entry.response.content
        guard let text = content.text else {
            guard content.size == 0 else {
                throw EndpointError(
                    .notRecorded,
                    "\(summary): its recorded answer's body (\(content.size) bytes) was over the recording's limit, so "
                        + "its bytes were not kept; record it with a larger maximumBodySize",
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

    static func split(_ data: Data) -> [Data] {
        guard data.count > 1 else { return data.isEmpty ? [] : [data] }
        let size = Swift.min(16 * 1024, (data.count + 1) / 2)
        return stride(from: 0, to: data.count, by: size).map { Data(data[$0..<Swift.min($0 + size, data.count)]) }
    }

    static func body(_ data: Data) -> ResponseBody {
        ResponseBody(length: data.count, pulling: ReplayedChunks(chunks: split(data)))
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Data>
        mutating func next() async throws -> Data? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks[...]) }
}
