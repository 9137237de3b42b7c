import EndpointKit
import Foundation

/// Checks that a ``Transport`` keeps the contract EndpointKit relies on, against a real httpbin server.
///
///     @Test func myTransportConforms() async throws {
///         let httpbin = URL(string: "http://127.0.0.1:8080")!
///         let failures = await TransportConformance.check(URLSessionTransport(), httpbinURL: httpbin)
///         #expect(failures.isEmpty, "\(failures)")
///     }
///
/// Run httpbin on loopback (`gunicorn httpbin:app`) and pass its URL. The checks: every status comes back as a
/// response; a `HEAD`, a 204 and a 304 announce no body; repeated response headers keep every value; redirects are returned, not followed; the body
/// streams in more than one chunk as the server sends it; leaving the body part way, or cancelling before the
/// head arrives, stops the transfer with ``EndpointError/Kind/cancelled``;
/// request bodies in memory, from a file and from async chunks (with and without a length) arrive intact;
/// a 100 KiB response and a 4 MiB upload arrive whole; each ``ResponseBodyHandling`` is honoured (a collected body
/// stops at its limit with ``EndpointError/Kind/responseTooLarge``, a written one reaches its sink or its reader
/// whole); and, for a transport whose ``Transport/enforcesTimeout`` is `true`, ``TransportOptions/timeout`` fails a
/// slow head and a slow collected body with ``EndpointError/Kind/timedOut``, and bounds a streamed body's head
/// only. It returns a description of each failed check, empty when the transport conforms; it works from XCTest
/// and Swift Testing alike.
public enum TransportConformance {
    /// Runs every check and returns the failures, empty when `transport` conforms.
    ///
    /// - Parameters:
    ///   - transport: The transport to check.
    ///   - httpbinURL: The base URL of an httpbin server, e.g. `http://127.0.0.1:8080`.
    /// - Returns: One line per failed check.
    public static func check(_ transport: any Transport, httpbinURL: URL) async -> [String] {
        var failures: [String] = []
        let checks: [(String, @Sendable (any Transport, URL) async throws -> String?)] = [
            ("statuses", statuses),
            ("bodiless responses", bodilessResponses),
            ("repeated headers", repeatedHeaders),
            ("no redirect following", noRedirects),
            ("streamed body", streamedBody),
            ("leaving the body", leavingTheBody),
            ("cancelling before the head", cancellingBeforeTheHead),
            ("request bodies", requestBodies),
            ("large bodies", largeBodies),
            ("body handling", bodyHandling),
            ("deadline", deadline),
        ]
        for (name, check) in checks {
            do {
                if let failure = try await check(transport, httpbinURL) { failures.append("\(name): \(failure)") }
            } catch {
                failures.append("\(name): threw \(error)")
            }
        }
        return failures
    }

    private static func url(_ base: URL, _ path: String) throws -> URL {
        guard let url = URL(string: base.absoluteString.trimmingCharacters(in: ["/"]) + path) else {
            throw URLError(.badURL)
        }
        return url
    }

    private static func statuses(_ transport: any Transport, _ base: URL) async throws -> String? {
        for status in [200, 204, 404, 500, 503] {
            let response = try await transport.send(
                TransportRequest(url: url(base, "/status/\(status)")),
                options: TransportOptions()
            )
            _ = try await response.body.collect(upTo: 1 << 20)
            if response.statusCode != status { return "asked for \(status), got \(response.statusCode)" }
        }
        return nil
    }

    /// A `HEAD`, a 204 and a 304 have no body whatever `Content-Length` says: the length is 0 or unknown, never
    /// the announced size, which would make a size limit refuse a body that does not exist.
    private static func bodilessResponses(_ transport: any Transport, _ base: URL) async throws -> String? {
        let requests = [
            TransportRequest(method: .head, url: try url(base, "/bytes/4194304")),
            TransportRequest(url: try url(base, "/status/204")),
            TransportRequest(url: try url(base, "/status/304")),
        ]
        for request in requests {
            let response = try await transport.send(request, options: TransportOptions())
            let body = try await response.body.collect(upTo: 1 << 20)
            if let length = response.body.length, length != 0 {
                return "\(request.method) \(request.url.path) announced a body of \(length) bytes"
            }
            if !body.isEmpty { return "\(request.method) \(request.url.path) had a body of \(body.count) bytes" }
        }
        return nil
    }

    private static func repeatedHeaders(_ transport: any Transport, _ base: URL) async throws -> String? {
        let request = TransportRequest(url: try url(base, "/response-headers?X-Twice=first&X-Twice=second"))
        let response = try await transport.send(request, options: TransportOptions())
        _ = try await response.body.collect(upTo: 1 << 20)
        let values = response.headers.values(for: "X-Twice").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        return Set(values) == ["first", "second"] ? nil : "X-Twice came back as \(values)"
    }

    private static func noRedirects(_ transport: any Transport, _ base: URL) async throws -> String? {
        let request = TransportRequest(url: try url(base, "/redirect-to?url=/get&status_code=302"))
        let response = try await transport.send(request, options: TransportOptions())
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.statusCode == 302 else { return "a 302 was followed: got \(response.statusCode)" }
        return response.headers[.location] == "/get" ? nil : "Location was \(response.headers[.location] ?? "missing")"
    }

    private static func streamedBody(_ transport: any Transport, _ base: URL) async throws -> String? {
        let request = TransportRequest(url: try url(base, "/drip?numbytes=4&duration=1&delay=0"))
        let response = try await transport.send(request, options: TransportOptions())
        var chunks = 0
        var bytes = 0
        for try await chunk in response.body {
            chunks += 1
            bytes += chunk.count
        }
        if bytes != 4 { return "expected 4 bytes, got \(bytes)" }
        return chunks > 1 ? nil : "the body arrived as one chunk: it was buffered, not streamed"
    }

    private static func leavingTheBody(_ transport: any Transport, _ base: URL) async throws -> String? {
        // 10 bytes over 5 s: a transport that does not stop the transfer keeps this check waiting that long.
        let request = TransportRequest(url: try url(base, "/drip?numbytes=10&duration=5&delay=0"))
        let response = try await transport.send(request, options: TransportOptions())
        let reader = Task { () throws -> Int in
            var bytes = 0
            for try await chunk in response.body {
                bytes += chunk.count
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return bytes
        }
        switch await reader.result {
        case .success(let bytes) where bytes >= 10:
            return "the body was read to the end after the reader was cancelled"
        case .success:
            return "a cancelled reader saw the body end quietly instead of an error"
        case .failure(let error as EndpointError) where error.kind == .cancelled:
            return nil
        case .failure(let error):
            return "a cancelled reader got \(error) instead of EndpointError.cancelled"
        }
    }

    private static func cancellingBeforeTheHead(_ transport: any Transport, _ base: URL) async throws -> String? {
        // httpbin answers /delay/10 after 10 s: a transport that ignores cancellation keeps this check that long.
        let request = TransportRequest(url: try url(base, "/delay/10"))
        let caller = Task { try await transport.send(request, options: TransportOptions()) }
        caller.cancel()
        switch await caller.result {
        case .success(let response):
            return "a cancelled send returned a \(response.statusCode) response instead of an error"
        case .failure(let error as EndpointError) where error.kind == .cancelled:
            return nil
        case .failure(let error):
            return "a cancelled send threw \(error) instead of EndpointError.cancelled"
        }
    }

    private static func requestBodies(_ transport: any Transport, _ base: URL) async throws -> String? {
        let text = String(repeating: "endpointkit ", count: 2_000)
        let bytes = Data(text.utf8)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let bodies: [(String, TransportRequest.Body)] = [
            ("in memory", .data(bytes)),
            ("from a file", try .file(file)),
            ("chunks with a length", .chunks(length: bytes.count) { Self.chunks(of: bytes) }),
            ("chunks without a length", .chunks { Self.chunks(of: bytes) }),
        ]
        for (name, body) in bodies {
            let request = TransportRequest(
                method: .post,
                url: try url(base, "/anything"),
                headers: [.contentType: "text/plain"],
                body: body
            )
            let response = try await transport.send(request, options: TransportOptions())
            let echo = try await response.body.collect(upTo: 1 << 20)
            struct Echo: Decodable { var data: String }
            let sent = try JSONDecoder().decode(Echo.self, from: echo).data
            if sent != text { return "the body \(name) arrived as \(sent.utf8.count) bytes, not \(bytes.count)" }
        }
        return nil
    }

    private static func chunks(of data: Data) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            var offset = 0
            while offset < data.count {
                continuation.yield(data[offset..<min(offset + 4_096, data.count)])
                offset += 4_096
            }
            continuation.finish()
        }
    }

    private static func largeBodies(_ transport: any Transport, _ base: URL) async throws -> String? {
        // httpbin serves at most 100 KiB of generated bytes; the request body can be larger.
        let size = 102_400
        let response = try await transport.send(
            TransportRequest(url: try url(base, "/stream-bytes/\(size)?seed=7")),
            options: TransportOptions()
        )
        let body = try await response.body.collect(upTo: 2 * size)
        if body.count != size { return "expected a \(size)-byte response, got \(body.count) bytes" }

        let upload = Data(String(repeating: "0123456789abcdef", count: 262_144).utf8)  // 4 MiB
        let request = TransportRequest(
            method: .put,
            url: try url(base, "/anything"),
            headers: [.contentType: "text/plain"],
            body: .data(upload)
        )
        let echo = try await transport.send(request, options: TransportOptions()).body.collect(upTo: 16 << 20)
        struct Echo: Decodable { var data: String }
        let received = try JSONDecoder().decode(Echo.self, from: echo).data.utf8.count
        return received == upload.count ? nil : "a \(upload.count)-byte upload arrived as \(received) bytes"
    }

    private static func bodyHandling(_ transport: any Transport, _ base: URL) async throws -> String? {
        let size = 4096
        let request = TransportRequest(url: try url(base, "/bytes/\(size)?seed=3"))
        // Collected: whole under a limit that fits, responseTooLarge past one that does not, whether the transport
        // reads the body itself or leaves it to the reader.
        let whole = try await transport.send(request, options: TransportOptions(body: .collect(upTo: 2 * size)))
        let collected = try await whole.body.collect(upTo: 2 * size)
        if collected.count != size { return "a collected \(size)-byte body came back as \(collected.count) bytes" }
        do {
            let over = try await transport.send(request, options: TransportOptions(body: .collect(upTo: size / 2)))
            let data = try await over.body.collect(upTo: size / 2)
            return "a \(size)-byte body collected under a \(size / 2)-byte limit came back as \(data.count) bytes"
        } catch let error as EndpointError where error.kind == .responseTooLarge {
        }
        // Written: every byte reaches the sink as it arrives, or the reader when the transport leaves it there.
        let written = Locked(Data())
        let write: @Sendable (Data) throws -> Void = { chunk in written.withLock { $0.append(chunk) } }
        let sink = BodySink { status, _ in status == 200 ? write : nil }
        let response = try await transport.send(request, options: TransportOptions(body: .write(to: sink)))
        let read = try await response.body.collect(upTo: 2 * size)
        let total = written.withLock { $0.count } + read.count
        return total == size ? nil : "a \(size)-byte body written to a sink arrived as \(total) bytes"
    }

    private static func deadline(_ transport: any Transport, _ base: URL) async throws -> String? {
        guard transport.enforcesTimeout else { return nil }
        let clock = ContinuousClock()
        func timedOut(_ path: String, _ body: ResponseBodyHandling) async throws -> String? {
            let started = clock.now
            do {
                let response = try await transport.send(
                    TransportRequest(url: try url(base, path)),
                    options: TransportOptions(timeout: .seconds(1), body: body)
                )
                _ = try await response.body.collect(upTo: 1 << 20)
                return "\(path) with a 1 s deadline succeeded after \(started.duration(to: clock.now))"
            } catch let error as EndpointError where error.kind == .timedOut {
                let took = started.duration(to: clock.now)
                return took < .milliseconds(2_500) ? nil : "\(path) timed out only after \(took)"
            }
        }
        // A head that comes after the deadline, and a body collected past it.
        if let failure = try await timedOut("/delay/3", .collect(upTo: 1 << 20)) { return failure }
        if let failure = try await timedOut("/drip?duration=3&numbytes=3&delay=0", .collect(upTo: 1 << 20)) {
            return failure
        }
        // A streamed body is the reader's for as long as it lasts: the deadline covers its head only.
        let streamed = try await transport.send(
            TransportRequest(url: try url(base, "/drip?duration=2&numbytes=2&delay=0")),
            options: TransportOptions(timeout: .seconds(1), body: .stream(bufferLimit: nil))
        )
        let body = try await streamed.body.collect(upTo: 1 << 20)
        return body.count == 2 ? nil : "a streamed body past the deadline arrived as \(body.count) bytes"
    }
}
