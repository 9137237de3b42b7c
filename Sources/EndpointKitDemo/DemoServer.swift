import EndpointKit
import EndpointKitTesting
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The demo's built-in API: an in-process stand-in for a real server, answering the demo endpoints.
enum DemoServer {
    static let baseURL = URL(string: "https://demo.endpointkit.invalid/v1")
    static let token = "demo-token"

    static let catalogue = [
        Item(id: 1, name: "Green tea"), Item(id: 2, name: "Black tea"), Item(id: 3, name: "Oolong tea"),
        Item(id: 42, name: "Towel"),
    ]

    static func makeTransport() -> StubTransport {
        StubTransport { request in try reply(to: request) }
    }

    /// Names given by `PATCH /v1/items/{id}`, by ID.
    static let renamed = Renames()

    private static func reply(to request: TransportRequest) throws -> StubResponse {
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else {
            return .status(400)
        }
        let path = components.percentEncodedPath
        let encoder = JSONEncoder()
        if path == "/v1/featured" {
            return try .json(encoder.encode(Array(catalogue.prefix(3))))
        }
        if path.hasPrefix("/v1/items/") {
            let segment = String(path.dropFirst("/v1/items/".count))
            guard let id = Int(segment), var item = catalogue.first(where: { $0.id == id }) else {
                return .json(#"{"error": "no item \#(segment)"}"#, status: 404)
            }
            if request.method == .patch {
                // An edit: a name is taken unless it is empty.
                let edit = try JSONDecoder().decode(Item.self, from: request.body?.data ?? Data())
                guard !edit.name.isEmpty else { return .json(#"{"error": "a name cannot be empty"}"#, status: 422) }
                renamed.set(edit.name, for: id, key: request.headers[.idempotencyKey])
            }
            item.name = renamed.name(for: id) ?? item.name
            return try .json(encoder.encode(item))
        }
        if path == "/v1/catalogue" { return try cataloguePage(components, request: request) }
        if path == "/v1/files/catalogue.bin" {
            // A 1 MiB file that streams in 16 chunks, for the download step's progress bar.
            let chunk = Data(repeating: 0x2A, count: 64 << 10)
            return .streamed(
                headers: [.contentType: "application/octet-stream", .contentLength: String(16 * chunk.count)],
                chunks: Array(repeating: chunk, count: 16)
            )
        }
        if path == "/v1/events" {
            // A Server-Sent Events feed of three events, then 204 when the client reconnects for more.
            guard request.headers["Last-Event-ID"] == nil else { return .status(204) }
            let events = [
                "id: 1\nevent: restock\ndata: Green tea\n\n", "id: 2\nevent: restock\ndata: Oolong tea\n\n",
                ": keep-alive\n\nid: 3\nevent: sale\ndata: Towel\ndata: 20 % off\n\n",
            ]
            return .streamed(headers: [.contentType: "text/event-stream"], chunks: events.map { Data($0.utf8) })
        }
        if path == "/v1/search" {
            guard request.headers[.authorization] == "Bearer \(token)" else {
                return .json(#"{"error": "missing or wrong bearer token"}"#, status: 401)
            }
            let query = components.queryItems?.first(where: { $0.name == "q" })?.value ?? ""
            let found = catalogue.filter { $0.name.localizedCaseInsensitiveContains(query) }
            return try .json(encoder.encode(SearchResults(items: found)))
        }
        return .status(404)
    }
}

extension DemoServer {
    /// The catalogue, two items a page, linked by `Link: rel="next"`, each page with its own ETag and `max-age=0`,
    /// so that a second walk asks again and gets 304s.
    fileprivate static func cataloguePage(_ components: URLComponents, request: TransportRequest) throws -> StubResponse
    {
        let page = components.queryItems?.first(where: { $0.name == "page" })?.value.flatMap { Int($0) } ?? 1
        let items = Array(catalogue.dropFirst((page - 1) * 2).prefix(2))
        let tag = "\"page-\(page)-\(items.map { String($0.id) }.joined(separator: "."))\""
        var headers: HTTPHeaders = [.eTag: tag, .cacheControl: "private, max-age=0"]
        if page * 2 < catalogue.count { headers[.link] = "</v1/catalogue?page=\(page + 1)>; rel=\"next\"" }
        if request.headers[.ifNoneMatch]?.contains(tag) == true {
            return .response(status: 304, headers: headers)
        }
        headers[.contentType] = "application/json"
        return try .response(status: 200, headers: headers, body: JSONEncoder().encode(items))
    }
}

extension StubResponse {
    fileprivate static func json(_ data: Data) -> StubResponse {
        .response(status: 200, headers: [.contentType: "application/json"], body: data)
    }
}

/// The demo server's one piece of state: the names edits gave, and the `Idempotency-Key` of each edit.
final class Renames: @unchecked Sendable {
    // Safe because every access to `names` and `keys` holds `lock`.
    private let lock = NSLock()
    private var names: [Int: String] = [:]
    private var keys: [Int: String] = [:]

    func set(_ name: String, for id: Int, key: String? = nil) {
        lock.lock()
        names[id] = name
        keys[id] = key
        lock.unlock()
    }

    /// The `Idempotency-Key` the last edit of `id` came with.
    func key(for id: Int) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return keys[id]
    }

    func name(for id: Int) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return names[id]
    }
}
