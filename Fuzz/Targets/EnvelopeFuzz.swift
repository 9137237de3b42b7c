import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Envelope decoding of whatever a server sends: a `{"result": …}` body decodes, anything else fails with
/// `decodingFailed` or `unacceptableStatus`, never a crash; an error's description is one line, and the token
/// the request carried never appears in it, in `dump`, in its body snippet or coding path, even when the
/// server echoes it back.
enum EnvelopeFuzz {
    struct Item: Decodable {
        var id: Int
        var name: String?
        var tags: [String]?
    }

    /// Answers every request with the response the current case set.
    final class CaseTransport: Transport, @unchecked Sendable {
        private let lock = NSLock()
        private var response = (status: 200, body: Data(), contentType: "")

        func answer(status: Int, body: Data, contentType: String) {
            lock.withLock { response = (status, body, contentType) }
        }

        func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
            let (status, body, contentType) = lock.withLock { response }
            return TransportResponse(statusCode: status, headers: ["Content-Type": contentType], data: body)
        }
    }

    static let transport = CaseTransport()
    static let client = EndpointClient(
        environment: PathFuzz.environment,
        transport: transport,
        envelope: .networkResponse
    )

    static let statuses = [200, 200, 200, 201, 204, 400, 401, 404, 500]
    static let contentTypes = ["application/json", "application/json; charset=utf-16", "text/plain", ""]

    static func run(_ input: inout FuzzInput) {
        let status = statuses[input.number(below: statuses.count)]
        let contentType = contentTypes[input.number(below: contentTypes.count)]
        let token = "FUZZSECRET" + String(input.number(below: 100))
        // The server echoes the token back wherever the input holds the byte 0xFE.
        var body: [UInt8] = []
        for byte in input.rest() {
            if byte == 0xFE { body += Array(token.utf8) } else { body.append(byte) }
        }
        transport.answer(status: status, body: Data(body), contentType: contentType)
        let endpoint = Endpoint<EndpointKinds.Private, [Item]>(path: "items")
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                _ = try await client.response(for: endpoint, using: AccessToken(token))
                outcome.set(nil)
            } catch {
                outcome.set(error)
            }
            done.signal()
        }
        done.wait()

        guard let thrown = outcome.error else {
            require((200..<300).contains(status), "status \(status) decoded successfully")
            let object = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
            require((object as? [String: Any])?["result"] != nil, "a body without a result decoded")
            return
        }
        guard let error = thrown as? EndpointError else {
            require(false, "the call threw \(type(of: thrown)), not an EndpointError")
            return
        }
        require(
            [.decodingFailed, .unacceptableStatus].contains(error.kind),
            "a server body failed as \(error.kind): \(error)"
        )
        var dumped = ""
        dump(error, to: &dumped)
        let printed = [
            "\(error)", String(reflecting: error), dumped, error.bodySnippet ?? "", error.codingPath ?? "",
            error.message, error.curlCommand ?? "", String(decoding: error.body ?? Data(), as: UTF8.self),
        ]
        for text in printed {
            require(!text.containsScalars("FUZZSECRET"), "the token was printed: \(text)")
        }
        require(!"\(error)".contains(where: { $0 == "\n" || $0 == "\r" }), "a description of several lines: \(error)")
    }

    /// The call's result, handed from its task to the fuzzer's thread.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: (any Error)?

        func set(_ error: (any Error)?) { lock.withLock { stored = error } }
        var error: (any Error)? { lock.withLock { stored } }
    }
}
