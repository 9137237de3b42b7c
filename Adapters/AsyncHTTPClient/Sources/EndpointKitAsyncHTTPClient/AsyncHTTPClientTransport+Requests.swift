import AsyncHTTPClient
import EndpointKit
import Foundation
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport {
    /// Refuses a URL whose written port is outside 1–65535, as ``EndpointError/Kind/invalidRequest``.
    ///
    /// `URL` accepts any digits as a port, and AsyncHTTPClient narrows `url.port` to 16 bits: it stops the
    /// process for an IP literal (`http://127.0.0.1:70000/`), connects to the truncated port for a host name, and
    /// takes a port too long for an `Int` (read as `nil`) for the default one. ``EndpointClient`` refuses such
    /// URLs before a transport sees them; this guards a transport called directly.
    static func checkPort(of url: URL) throws {
        // In range as Foundation read it: the common case, decided without reading the text.
        if let port = url.port, (1...65_535).contains(port) { return }
        var text = url.absoluteString
        let written = text.withUTF8 { bytes -> String? in
            // The authority runs from "://" to the path, query or fragment; the port follows its last colon that
            // comes after any user information ("@") and IPv6 literal ("]").
            var index = 0
            while index + 2 < bytes.count,
                !(bytes[index] == 0x3A && bytes[index + 1] == 0x2F && bytes[index + 2] == 0x2F)
            {
                index += 1
            }
            guard index + 2 < bytes.count else { return nil }
            index += 3
            var colon: Int?
            while index < bytes.count, bytes[index] != 0x2F, bytes[index] != 0x3F, bytes[index] != 0x23 {
                if bytes[index] == 0x40 || bytes[index] == 0x5D { colon = nil }
                if bytes[index] == 0x3A { colon = index }
                index += 1
            }
            guard let colon, colon + 1 < index else { return nil }
            return String(decoding: bytes[(colon + 1)..<index], as: UTF8.self)
        }
        guard let written else { return }
        throw EndpointError(.invalidRequest, "the URL's port \(written.prefix(24)) is outside 1–65535")
    }

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
