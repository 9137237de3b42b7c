#if AsyncHTTPClient
import AsyncHTTPClient
import EndpointKit
import Foundation
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport {
    /// The request AsyncHTTPClient sends for `request`: its method, URL, headers in order, and body.
    static func clientRequest(for request: TransportRequest, options: TransportOptions) throws -> HTTPClientRequest {
        var clientRequest = HTTPClientRequest(url: request.url.absoluteString)
        clientRequest.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        clientRequest.headers = clientHeaders(for: request)
        if let body = request.body {
            clientRequest.body = try clientBody(for: body, progress: options.uploadProgress)
        }
        return clientRequest
    }

    /// The request's header fields in order, repeated names kept.
    static func clientHeaders(for request: TransportRequest) -> NIOHTTP1.HTTPHeaders {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.reserveCapacity(request.headers.count)
        for field in request.headers { headers.add(name: field.name.rawValue, value: field.value) }
        return headers
    }

    /// A body in memory goes as it is when nobody watches its progress; anything else is streamed, with
    /// `Content-Length` when its length is known.
    private static func clientBody(
        for body: TransportRequest.Body,
        progress: (@Sendable (_ sent: Int64, _ expected: Int64?) -> Void)?
    ) throws -> HTTPClientRequest.Body {
        if let data = body.data, progress == nil {
            return .bytes(ByteBuffer(bytes: data))
        }
        let chunks = RequestChunks(chunks: try body.makeChunks(), length: body.length, progress: progress)
        let length: HTTPClientRequest.Body.Length = body.length.map { .known(Int64($0)) } ?? .unknown
        return .stream(chunks, length: length)
    }

    /// `version` as OpenTelemetry's `network.protocol.version` writes it: `"1.1"`, `"2"`.
    static func protocolVersion(_ version: HTTPVersion) -> String {
        // The versions a response comes in without formatting a number: this runs for every response.
        switch (version.major, version.minor) {
        case (1, 1): "1.1"
        case (2, 0): "2"
        case (1, 0): "1.0"
        default:
            version.minor == 0 && version.major >= 2 ? "\(version.major)" : "\(version.major).\(version.minor)"
        }
    }

    /// The response's header fields, in order, repeated names kept.
    static func headers(from headers: NIOHTTP1.HTTPHeaders) -> EndpointKit.HTTPHeaders {
        EndpointKit.HTTPHeaders(headers.map { EndpointKit.HTTPHeaders.Field(name: .init($0.name), value: $0.value) })
    }
}

/// A request body's chunks as AsyncHTTPClient reads them, at most 64 KiB each, reporting upload progress as each
/// is handed over.
struct RequestChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let chunks: AsyncThrowingStream<Data, any Error>
    let length: Int?
    let progress: (@Sendable (_ sent: Int64, _ expected: Int64?) -> Void)?

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks.makeAsyncIterator(), expected: length.map(Int64.init), progress: progress)
    }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: AsyncThrowingStream<Data, any Error>.AsyncIterator
        let expected: Int64?
        let progress: (@Sendable (_ sent: Int64, _ expected: Int64?) -> Void)?
        var sent: Int64 = 0
        /// What is left of a chunk larger than a piece.
        var rest = Data()

        mutating func next() async throws -> ByteBuffer? {
            if rest.isEmpty {
                guard let chunk = try await chunks.next() else { return nil }
                rest = chunk
            }
            let piece = rest.prefix(Self.pieceSize)
            rest = rest.dropFirst(piece.count)
            sent += Int64(piece.count)
            progress?(sent, expected)
            return ByteBuffer(bytes: piece)
        }

        /// The most bytes handed over at once, so that progress moves for a body given in one chunk.
        static let pieceSize = 64 << 10
    }
}
#endif
