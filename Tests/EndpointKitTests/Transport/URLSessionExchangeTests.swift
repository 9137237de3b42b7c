import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession delegate's exchange as a value: each callback one transition, with a number in place of the
/// caller's continuation, so that every answer the caller gets is counted.
@Suite struct URLSessionExchangeTests {
    private typealias Subject = URLSessionTransport.Exchange<Int>

    private static func exchange(collecting limit: Int? = 100, streaming channel: BodyChannel? = nil) -> Subject {
        Subject(
            caller: 1,
            settings: Subject.Settings(
                body: channel,
                wholeBodyLimit: channel == nil ? limit : nil,
                isHead: false,
                timeoutCoversBody: true,
                idleTimeout: (60, "idleTimeout"),
                finished: {}
            )
        )
    }

    private static func head(_ status: Int, _ fields: [String: String] = [:]) throws -> HTTPURLResponse {
        let url = try #require(URL(string: "https://api.test/items"))
        return try #require(
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
        )
    }

    /// The end of the task as the delegate takes it: the task's own response as the head, if it should be, then the
    /// completion.
    private static func end(_ exchange: inout Subject, error: (any Error)?, response: URLResponse?)
        -> Subject.Completion
    {
        if exchange.takesHeadAtEnd(error: error), let response { _ = exchange.receiveHead(response, at: .now) }
        return exchange.complete(error: error)
    }

    private static func body(of completion: Subject.Completion) -> String? {
        guard case (1, .success(let response))? = completion.caller else { return nil }
        return response.body.bufferedData.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("A collected body wakes the caller once, complete, after informational heads are passed over")
    func collected() throws {
        var exchange = Self.exchange()

        let early = exchange.receiveHead(try Self.head(103), at: .now)
        let head = exchange.receiveHead(try Self.head(200, ["Content-Length": "5"]), at: .now)
        let chunks = [exchange.receiveData(Data("hel".utf8)), exchange.receiveData(Data("lo".utf8))]
        let completion = Self.end(&exchange, error: nil, response: try Self.head(200))

        guard case .none = early, case .none = head else { return #expect(Bool(false), "a head answered early") }
        #expect(chunks.allSatisfy { if case .none = $0 { true } else { false } })
        #expect(Self.body(of: completion) == "hello")
        #expect(exchange.release() == nil, "answered twice")
    }

    @Test("A body past the limit fails the caller once: announced at the head, or as it arrives")
    func tooLarge() throws {
        var announced = Self.exchange(collecting: 3)
        var arriving = Self.exchange(collecting: 3)

        let head = announced.receiveHead(try Self.head(200, ["Content-Length": "10"]), at: .now)
        _ = arriving.receiveHead(try Self.head(200), at: .now)
        let chunk = arriving.receiveData(Data("four".utf8))

        guard case .fail(let headFailure) = head, case .tooLarge(let chunkFailure) = chunk else {
            return #expect(Bool(false), "\(head) \(chunk)")
        }
        #expect(headFailure.caller == 1 && headFailure.error.kind == .responseTooLarge)
        #expect(chunkFailure.caller == 1 && chunkFailure.error.kind == .responseTooLarge)
        #expect(Self.end(&announced, error: nil, response: nil).caller == nil)
        #expect(Self.end(&arriving, error: nil, response: nil).caller == nil)
    }

    @Test("A body shorter than announced fails the caller as cut short")
    func truncated() throws {
        var exchange = Self.exchange()

        _ = exchange.receiveHead(try Self.head(200, ["Content-Length": "10"]), at: .now)
        _ = exchange.receiveData(Data("12345".utf8))
        let completion = Self.end(&exchange, error: nil, response: nil)

        guard case (1, .failure(let error))? = completion.caller else { return #expect(Bool(false)) }
        #expect(error.message.contains("5 of 10 bytes"))
    }

    @Test("A streamed body: the head goes to the caller at once, chunks to the channel, the end to the channel")
    func streamed() throws {
        let channel = BodyChannel(stop: {})
        var exchange = Self.exchange(streaming: channel)

        let head = exchange.receiveHead(try Self.head(200), at: .now)
        let chunk = exchange.receiveData(Data("a".utf8))
        let completion = Self.end(&exchange, error: nil, response: try Self.head(200))

        guard case .deliver(1, let response, _, let delivered, _) = head, case .stream(let streamed) = chunk else {
            return #expect(Bool(false), "\(head) \(chunk)")
        }
        #expect(response.statusCode == 200 && delivered === channel && streamed === channel)
        #expect(completion.caller == nil && completion.body === channel && completion.bodyFailure == nil)
    }

    @Test("A caller released (cancelled, past its deadline) is answered by nobody else")
    func released() throws {
        var exchange = Self.exchange()

        let released = exchange.release()
        let head = exchange.receiveHead(try Self.head(200), at: .now)
        let completion = Self.end(&exchange, error: nil, response: try Self.head(200))

        #expect(released == 1)
        guard case .none = head else { return #expect(Bool(false), "\(head)") }
        #expect(completion.caller == nil)
    }

    @Test("A declined authentication challenge: its 401 is the answer, though the task ended cancelled")
    func declinedChallenge() throws {
        var exchange = Self.exchange()

        exchange.declineChallenge()
        let completion = Self.end(
            &exchange,
            error: URLError(.cancelled),
            response: try Self.head(401, ["WWW-Authenticate": "Basic"])
        )

        guard case (1, .success(let response))? = completion.caller else { return #expect(Bool(false)) }
        #expect(response.statusCode == 401)
    }

    @Test("A 101 nobody asked for fails the caller; bytes before the head are kept for a collecting caller")
    func switchedAndEarlyBytes() throws {
        var switched = Self.exchange()
        var early = Self.exchange()

        let upgrade = switched.receiveHead(try Self.head(101, ["Upgrade": "websocket"]), at: .now)
        _ = early.receiveData(Data("ab".utf8))
        _ = early.receiveHead(try Self.head(200), at: .now)
        let completion = Self.end(&early, error: nil, response: nil)

        guard case .fail(let failure) = upgrade else { return #expect(Bool(false), "\(upgrade)") }
        #expect(failure.caller == 1 && failure.error.statusCode == 101)
        #expect(Self.body(of: completion) == "ab")
    }
}
