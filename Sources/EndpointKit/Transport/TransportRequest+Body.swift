import Foundation

extension TransportRequest {
    /// A request body at the transport seam: bytes in memory, a file, or a stream of byte chunks.
    ///
    /// A body says whether it can be sent again; retries, 307/308 redirects and replays after a token refresh
    /// ask ``canBeSentAgain`` and never re-send a body that was consumed. Every body can be read as chunks with
    /// ``makeChunks()``, which is all a transport needs; transports that can send a file or bytes more
    /// directly look at ``data`` and ``fileURL`` first.
    public struct Body: Sendable {
        enum Storage: Sendable {
            case data(Data)
            case file(URL)
            case chunks(@Sendable () throws -> AsyncThrowingStream<Data, any Error>)
            case inputStream(@Sendable () throws -> InputStream)
        }

        let storage: Storage
        /// The body's length in bytes, or `nil` when unknown (a stream sent chunked).
        public let length: Int?
        /// Whether the body can be read, and so sent, more than once.
        public let canBeSentAgain: Bool

        /// A body of bytes in memory; it can be sent again.
        public static func data(_ data: Data) -> Body {
            Body(storage: .data(data), length: data.count, canBeSentAgain: true)
        }

        /// The contents of a file, read from disk as it is sent; it can be sent again.
        ///
        /// - Throws: When the file's size cannot be read.
        public static func file(_ url: URL) throws -> Body {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let size = (attributes[.size] as? NSNumber)?.intValue
            return Body(storage: .file(url), length: size, canBeSentAgain: true)
        }

        /// A body read from an async stream of byte chunks.
        ///
        /// - Parameters:
        ///   - length: The total length when known; a transport then sends it with a `Content-Length`.
        ///   - canBeSentAgain: Whether `makeChunks` may be called again for a retry and yields the same bytes;
        ///     `false` means the body is sent at most once per call.
        ///   - makeChunks: Makes the stream of chunks, once per send.
        /// - Returns: The body.
        public static func chunks(
            length: Int? = nil,
            canBeSentAgain: Bool = false,
            _ makeChunks: @escaping @Sendable () throws -> AsyncThrowingStream<Data, any Error>
        ) -> Body {
            Body(storage: .chunks(makeChunks), length: length, canBeSentAgain: canBeSentAgain)
        }

        /// A body read from an `InputStream` of unknown length, made once per call; it is never sent again.
        static func inputStream(_ makeStream: @escaping @Sendable () throws -> InputStream) -> Body {
            Body(storage: .inputStream(makeStream), length: nil, canBeSentAgain: false)
        }

        /// The bytes, when the body is in memory; `nil` for a file or a stream.
        public var data: Data? {
            if case .data(let data) = storage { return data }
            return nil
        }

        /// The file, when the body is read from one; `nil` otherwise.
        public var fileURL: URL? {
            if case .file(let url) = storage { return url }
            return nil
        }

        /// The body as a stream of byte chunks, whatever it is stored as.
        ///
        /// A file and an `InputStream` are read 64 KiB at a time as the stream is iterated.
        ///
        /// - Throws: When a stream or a file cannot be opened.
        public func makeChunks() throws -> AsyncThrowingStream<Data, any Error> {
            switch storage {
            case .data(let data):
                return AsyncThrowingStream { continuation in
                    continuation.yield(data)
                    continuation.finish()
                }
            case .file(let url):
                let handle = SerialAccess(try FileHandle(forReadingFrom: url))
                return Self.chunks(
                    reading: { try handle.value.read(upToCount: Self.chunkSize) },
                    closing: { try? handle.value.close() }
                )
            case .chunks(let make):
                return try make()
            case .inputStream(let make):
                let stream = SerialAccess(try make())
                stream.value.open()
                return Self.chunks(reading: { try Self.read(from: stream.value) }, closing: { stream.value.close() })
            }
        }

        static let chunkSize = 64 << 10

        /// A stream that calls `read` for each chunk until it returns `nil` or an empty chunk.
        private static func chunks(
            reading read: @escaping @Sendable () throws -> Data?,
            closing close: @escaping @Sendable () -> Void
        ) -> AsyncThrowingStream<Data, any Error> {
            AsyncThrowingStream(unfolding: {
                do {
                    guard let chunk = try read(), !chunk.isEmpty else {
                        close()
                        return nil
                    }
                    return chunk
                } catch {
                    close()
                    throw error
                }
            })
        }

        private static func read(from stream: InputStream) throws -> Data? {
            var buffer = [UInt8](repeating: 0, count: chunkSize)
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 {
                throw stream.streamError ?? CocoaError(.fileReadUnknown)
            }
            return Data(buffer[0..<count])
        }
    }
}

/// A non-`Sendable` reader used by one stream's unfolding closure only.
private final class SerialAccess<Value>: @unchecked Sendable {
    // Safe because `AsyncThrowingStream(unfolding:)` calls its closure for one `next()` at a time, so the value
    // is never touched by two threads at once.
    let value: Value

    init(_ value: Value) { self.value = value }
}
