import Foundation
import Testing

@testable import EndpointKit

/// The one rule for the length a response head announces, which both transports and downloads use.
@Suite
struct AnnouncedBodyLengthTests {
    private func length(_ fields: [(String, String)], status: Int = 200, isHead: Bool = false) -> Int64? {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(value, for: HTTPHeaders.Name(name)) }
        return headers.announcedBodyLength(statusCode: status, isHead: isHead)
    }

    @Test("A response to HEAD, a 1xx, a 204 or a 304 has no body, whatever Content-Length says")
    func noBody() {
        #expect(length([("Content-Length", "10")], isHead: true) == 0)
        for status in [100, 103, 204, 304] { #expect(length([("Content-Length", "10")], status: status) == 0) }
    }

    @Test("Content-Length is the length, with optional spaces around it, whatever the name's case")
    func plainLength() {
        #expect(length([("Content-Length", "42")]) == 42)
        #expect(length([("content-length", " 42\t")]) == 42)
        #expect(length([("Content-Length", "0")]) == 0)
        #expect(length([]) == nil)
    }

    @Test("A sign, a space inside, another character or a number past Int64 is no length")
    func malformedLength() {
        for bad in ["+42", "-1", "4 2", "42a", "", " ", "0x10", "99999999999999999999"] {
            #expect(length([("Content-Length", bad)]) == nil, "\(bad.debugDescription)")
        }
        #expect(length([("Content-Length", "9223372036854775807")]) == Int64.max)
    }

    @Test("A content coding other than identity makes the decoded length unknown")
    func contentEncoding() {
        #expect(length([("Content-Length", "42"), ("Content-Encoding", "gzip")]) == nil)
        #expect(length([("Content-Encoding", "identity, br"), ("Content-Length", "42")]) == nil)
        #expect(length([("Content-Length", "42"), ("Content-Encoding", "Identity")]) == 42)
        #expect(length([("Content-Length", "42"), ("Content-Encoding", " identity ,identity")]) == 42)
    }
}

/// Headers checked when a request is built are not checked again at each hop unless something changed them.
@Suite
struct CheckedHeadersOnceTests {
    @Test("A checked list stays checked when the field written passes, and only then")
    func oneFieldWritesStayChecked() {
        var headers: HTTPHeaders = [.accept: "application/json"]
        headers.markChecked()
        headers[.authorization] = "Bearer t"
        headers.add("1", for: "X-Trace")
        headers.remove(.accept)
        #expect(headers.isChecked)
        for (name, value) in [
            ("Host", "evil.test"), ("content-LENGTH", "5"), ("Keep-Alive", "1"), ("TE", "x"),
            ("X-Bad", "a\r\nb"), ("Bad Name", "x"), ("X-Ünicode", "é"),
        ] {
            var written = headers
            written[HTTPHeaders.Name(name)] = value
            var added = headers
            added.add(value, for: HTTPHeaders.Name(name))
            #expect(!written.isChecked && !added.isChecked, "\(name): \(value.debugDescription)")
            #expect(written.validate() != nil)
        }
    }

    @Test("A field that fails clears the note that the headers were checked; equality ignores the note")
    func changesClearTheNote() {
        var headers: HTTPHeaders = [.accept: "application/json"]
        let unchecked = headers
        headers.markChecked()
        #expect(headers.isChecked)
        #expect(headers == unchecked)
        #expect(headers.hashValue == unchecked.hashValue)

        var set = headers
        set["X-Trace"] = "a\nb"
        var added = headers
        added.add("2", for: "Content-Length")
        var neverChecked = unchecked
        neverChecked["X-Trace"] = "1"
        #expect(!set.isChecked && !added.isChecked && !neverChecked.isChecked)
        #expect(headers.isChecked, "the copies changed, not the original")
    }

    @Test("A header a middleware adds after the request was built is still checked before the transport")
    func middlewareWritesAreChecked() async throws {
        struct Injector: Middleware {
            func intercept(_ request: TransportRequest, context: RequestContext, next: MiddlewareNext) async throws
                -> TransportResponse
            {
                var request = request
                request.headers["X-Injected"] = "a\r\nHost: evil.test"
                return try await next(request, context: context)
            }
        }
        let transport = StubTransportRecorder()
        let client = EndpointClient(environment: Fixture.environment, transport: transport, middleware: [Injector()])

        let error = try await #require(throws: EndpointError.self) { try await client.response(for: .featuredItems) }

        #expect(error.kind == .invalidRequest)
        #expect(transport.count.withLock { $0 } == 0)
    }
}

/// Counts what reaches it; answers `[]`.
private final class StubTransportRecorder: Transport {
    let count = Locked(0)
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        count.withLock { $0 += 1 }
        return TransportResponse(statusCode: 200, data: Data("[]".utf8))
    }
}
