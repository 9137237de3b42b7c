// Runs the code generated from Generator/Tests/EndpointKitOpenAPITests/Fixtures/security-shapes.yaml: what each
// factory sends (path, query, the credential of each kind), what its models decode, and how a documented error is
// read. Built and run by scripts/openapi-compile-checks.sh with the generated sources beside it; exits 1 on the
// first failed check, naming it.
import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that records each request and answers with the next reply.
actor Recorder: Transport {
    private var replies: [(status: Int, body: String)]
    private(set) var sent: [TransportRequest] = []

    init(_ replies: [(status: Int, body: String)]) { self.replies = replies }

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        sent.append(request)
        let reply = replies.isEmpty ? (status: 200, body: "[]") : replies.removeFirst()
        return TransportResponse(statusCode: reply.status, url: request.url, data: Data(reply.body.utf8))
    }
}

/// A transport that serves the fixture's three paged lists, each in two pages, by path and query.
struct PageServer: Transport {
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        let query = request.url.query ?? ""
        let (body, headers): (String, HTTPHeaders)
        switch request.url.path {
        case "/v1/notes":
            body =
                query.contains("starting_after=n2")
                ? #"{"has_more": false, "data": [{"id": "n3"}]}"#
                : #"{"has_more": true, "data": [{"id": "n1"}, {"id": "n2"}]}"#
            headers = HTTPHeaders()
        case "/v1/numbered/notes":
            body =
                query.contains("page=2")
                ? #"{"page": 2, "pages": 2, "data": [{"id": "n2"}]}"#
                : #"{"page": 1, "pages": 2, "data": [{"id": "n1"}]}"#
            headers = HTTPHeaders()
        default:
            body = query.isEmpty ? #"[{"id": "n1"}]"# : #"[{"id": "n2"}]"#
            headers =
                query.isEmpty ? ["Link": "<https://api.example.test/v1/linked/notes?after=n1>; rel=\"next\""] : [:]
        }
        return TransportResponse(statusCode: 200, headers: headers, url: request.url, data: Data(body.utf8))
    }
}

func check(_ condition: Bool, _ what: String, line: Int = #line) {
    guard condition else {
        FileHandle.standardError.write(Data("runtime check FAILED (main.swift:\(line)): \(what)\n".utf8))
        exit(1)
    }
    print("runtime check passed: \(what)")
}

/// The API's server, as the fixture declares it.
let apiEnvironment = ServerEnvironment(baseURL: URL(string: "https://api.example.test/v1") ?? URL(fileURLWithPath: "/"))

let token = AccessToken("t0ken")

/// What each kind sends, and what the models decode.
func requestsAndModels() async throws {
    let thing =
        #"{"id": 42, "serial": "SN-1", "name": "lamp", "status": "archived", "created_at": "2026-11-27T10:00:00Z", "nickname": "", "settings": {"theme": "dark", "volume": 7, "brightness": 3}, "parent": {"id": 1, "name": "room", "status": "active", "created_at": "2026-11-27T10:00:00.250Z", "nickname": "desk"}}"#
    let recorder = Recorder([
        (200, thing), (200, "[]"), (200, "[]"), (200, "[]"), (200, "[]"), (201, thing), (201, thing), (200, "[]"),
    ])
    let client = EndpointClient(
        environment: apiEnvironment,
        transport: recorder
    )

    let fetched = try await client.response(for: .getThing(thingId: 42), using: token)
    check(
        Endpoint<EndpointKinds.Private, Thing>.getThing(thingId: 42).path.template == "things/{thingId}",
        "the factory's path template is the description's"
    )
    check(
        fetched.status == .unknown("archived") && fetched.status?.rawValue == "archived",
        "an enum value the description does not list decodes as unknown and keeps its text"
    )
    check(fetched.parent?.status == .active && fetched.parent?.name == "room", "a type that holds itself decodes")
    check(fetched.serial == "SN-1", "a required read-only member is read from a response")
    try checkValues(fetched)
    let sentThing = String(decoding: try OpenAPICoding.encoder.encode(Thing(id: 7, name: "new")), as: UTF8.self)
    check(!sentThing.contains("serial"), "a read-only member left nil is not sent: \(sentThing)")
    check(fetched.createdAt == Date(timeIntervalSince1970: 1_795_773_600), "a date-time decodes (RFC 3339)")
    check(
        fetched.parent?.createdAt == Date(timeIntervalSince1970: 1_795_773_600.25),
        "a date-time with fractional seconds decodes"
    )

    let options = Endpoint<EndpointKinds.Private, Thing>.getThing(thingId: 42).options
    check(
        !options.isCached && !options.isIdempotencyKeyed
            && options.cacheDirectives == CacheDirectives(maxAge: .seconds(60), staleIfError: .seconds(300)),
        "the overlay's options for an operation are set on its endpoint"
    )
    _ = try await client.response(for: .listPublicThings(limit: 5, status: .retired))
    _ = try await client.response(for: .listThingsWithHeaderKey(), using: AccessToken("header-key"))
    _ = try await client.response(for: .listThingsWithQueryKey(), using: AccessToken("query key+1"))
    _ = try await client.response(for: .listThingsWithCookieKey(), using: AccessToken("cookie-key"))
    _ = try await client.response(
        for: .createThingWithEither(body: fetched),
        using: .basic(BasicCredentials(user: "u", password: "p"))
    )
    _ = try await client.response(for: .createThingWithEither(body: fetched), using: .bearer(token))
    let both = SecurityKinds.BearerAuthAndHeaderKey.Credentials(bearerAuth: token, headerKey: AccessToken("both-key"))
    _ = try await client.response(for: .listThingsWithBoth(), using: both)

    try checkSent(await recorder.sent)
}

/// What `OrEmpty` and the open enums decode, encode and compare as.
func checkValues(_ fetched: Thing) throws {
    check(
        fetched.nickname == .empty && fetched.parent?.nickname == .value("desk"),
        "a value or the empty string decodes as OrEmpty: the empty string as .empty"
    )
    let cleared = String(
        decoding: try OpenAPICoding.encoder.encode(Thing(id: 7, name: "new", nickname: .empty)),
        as: UTF8.self
    )
    check(cleared.contains(#""nickname":"""#), "OrEmpty.empty is sent as the empty string: \(cleared)")
    let settings = fetched.settings
    check(
        settings?.theme == "dark" && settings?.additionalProperties == ["volume": 7, "brightness": 3],
        "members the description does not declare are kept beside the declared ones"
    )
    var changed = Settings(theme: "light", additionalProperties: ["volume": 2, "theme": 9])
    changed.additionalProperties["contrast"] = 1
    let sentSettings = try JSONSerialization.jsonObject(with: OpenAPICoding.encoder.encode(changed)) as? NSDictionary
    check(
        sentSettings == ["theme": "light", "volume": 2, "contrast": 1],
        "undeclared members are sent back; a declared key among them is left to its property"
    )
    check(
        Status(rawValue: "retired") == .retired && Status.retired.rawValue == "retired"
            && Set([Status.active, Status(rawValue: "active")]).count == 1,
        "a listed value and its case are one: by raw value, by equality and by hash"
    )
}

/// What the calls of ``requestsAndModels()`` sent, in order.
func checkSent(_ sent: [TransportRequest]) throws {
    check(sent.count == 8, "each call sent one request")
    check(
        sent[0].url.path == "/v1/things/42" && sent[0].headers["Authorization"] == "Bearer t0ken",
        "a bearer operation sends its token"
    )
    check(
        sent[1].url.query == "limit=5&status=retired" && sent[1].headers["Authorization"] == nil,
        "a public operation sends its typed query and no credential"
    )
    check(sent[2].headers["X-Shape-Key"] == "header-key", "an API key in a header is sent in it")
    check(sent[3].url.query == "shape_code=query%20key%2B1", "an API key in the query is percent-encoded, + included")
    check(sent[4].headers["Cookie"] == "session_key=cookie-key", "an API key in a cookie is sent as one")
    check(sent[5].headers["Authorization"] == "Basic dTpw", "OR: the basic alternative sends basic credentials")
    check(sent[6].headers["Authorization"] == "Bearer t0ken", "OR: the bearer alternative sends the token")
    check(
        sent[7].headers["Authorization"] == "Bearer t0ken" && sent[7].headers["X-Shape-Key"] == "both-key",
        "AND: both credentials are sent"
    )
    let body = try JSONSerialization.jsonObject(with: sent[5].body?.data ?? Data()) as? [String: Any]
    check(
        body?["created_at"] as? String == "2026-11-27T10:00:00Z" && body?["id"] as? Int == 42,
        "a JSON body is encoded with the description's keys and RFC 3339 dates"
    )
}

/// A path parameter that is an integer or a string: its value's text, in the path and in the query.
func scalarUnions() async throws {
    let recorder = Recorder([(204, ""), (204, ""), (204, ""), (204, "")])
    let client = EndpointClient(environment: apiEnvironment, transport: recorder)
    _ = try await client.response(for: .getWorkflow(workflowId: .int(7)))
    _ = try await client.response(for: .getWorkflow(workflowId: .string("ci.yml"), ref: .string("main")))
    let sent = await recorder.sent
    check(sent[0].url.path.hasSuffix("/workflows/7"), "an integer-or-string path parameter sends the integer's text")
    check(
        sent[1].url.path.hasSuffix("/workflows/ci.yml") && sent[1].url.query == "ref=main",
        "… and the string's, in the path and in the query"
    )
    _ = try await client.response(
        for: .getWorkflow(workflowId: .int(8), fields: .stringList(["a", "b c"]), has: .list([.patch, .unknown("x")]))
    )
    check(
        await recorder.sent[2].url.query == "fields=a&fields=b%20c&has=patch&has=x",
        "a string-or-list query parameter sends one item per element of a list, of strings or of an enum's values"
    )
    _ = try await client.response(for: .getWorkflow(workflowId: .int(9), ids: [1, 2, 3]))
    let joined = await recorder.sent[3].url.query ?? ""
    check(
        joined == "ids=1%2C2%2C3",
        "a list in a query that is not exploded is one item, its values joined by (percent-encoded) commas: \(joined)"
    )
}

/// How documented errors are read.
func documentedErrors() async throws {
    let failing = EndpointClient(
        environment: apiEnvironment,
        transport: Recorder([(409, #"{"holders": [7, 8]}"#), (404, #"{"code": "missing", "detail": "no thing 9"}"#)])
    )
    do {
        _ = try await failing.response(for: .deleteThing(thingId: 9), using: BasicCredentials(user: "u", password: "p"))
        check(false, "a 409 fails the call")
    } catch {
        if case .status409(let conflict) = try DeleteThingError(error) {
            check(conflict.holders == [7, 8], "a documented error body of several is decoded by its status")
        } else {
            check(false, "a 409 decodes as the 409 the operation documents")
        }
    }
    do {
        _ = try await failing.response(for: .getThing(thingId: 9), using: token)
        check(false, "a 404 fails the call")
    } catch {
        check(try error.documentedBody(as: Problem.self).detail == "no thing 9", "a documented error body is decoded")
        check(
            (try? error.documentedBody(as: Problem.self, statuses: ["409", "5XX"])) == nil,
            "a documented error body is not read for a status the operation does not document it for"
        )
        check(
            (try? error.documentedBody(as: Problem.self, statuses: ["4XX"]))?.detail == "no thing 9",
            "a range of statuses (4XX) matches the status"
        )
    }
    // A 200 whose body does not decode is no documented error, however few members the error type requires.
    let undecodable = EndpointClient(
        environment: apiEnvironment,
        transport: Recorder([(200, #"{"code": "missing", "detail": "not a thing"}"#)])
    )
    do {
        _ = try await undecodable.response(for: .getThing(thingId: 9), using: token)
        check(false, "a 200 whose body is not a Thing fails the call")
    } catch {
        check(error.kind == .decodingFailed, "a 200 whose body is not a Thing fails to decode")
        check(
            (try? error.documentedBody(as: Problem.self)) == nil,
            "documentedBody throws for a 2xx answer whose body failed to decode"
        )
    }
}

/// An object in the query, in deepObject style, and pages by the rules the description shows.
func queriesAndPages() async throws {
    let deep = Recorder([(200, "[]"), (200, "[]"), (200, #"{"page": 1, "pages": 1}"#)])
    let deepClient = EndpointClient(environment: apiEnvironment, transport: deep)
    _ = try await deepClient.response(for: .listPublicThings(limit: 1, created: .object(.init(gt: 5, lt: 9))))
    _ = try await deepClient.response(for: .listPublicThings(created: .int(7)))
    let deepSent = await deep.sent
    check(
        deepSent[0].url.query == "limit=1&created%5Bgt%5D=5&created%5Blt%5D=9",
        "a deepObject query parameter is name[key]=value"
    )
    check(deepSent[1].url.query == "created=7", "a deepObject parameter's other shape (a number) is one item")
    _ = try await deepClient.response(for: .listNumberedNotes(theme: "dark; admin=1", width: 3))
    check(
        await deep.sent[2].headers["Cookie"] == "theme=dark%3B%20admin%3D1; width=3",
        "cookie parameters are sent percent-encoded, so a value cannot add a cookie"
    )
    let order = CreateOrderRequest(expand: ["customer"], items: [.init(price: "p 1", quantity: 2), .init(price: "p2")])
    _ = try await deepClient.response(for: .listPublicThings(expand: ["a", "b"]))
    _ = try await deepClient.response(for: .createOrder(body: order))
    let lists = await deep.sent
    check(lists[3].url.query == "expand%5B0%5D=a&expand%5B1%5D=b", "a deepObject list is indexed: name[0]=…")
    _ = try await deepClient.response(for: .listPublicThings(tiers: [.init(), .init(min: 2), .init(min: 3)]))
    check(
        await deep.sent[5].url.query?.removingPercentEncoding == "tiers[0][min]=2&tiers[1][min]=3",
        "in a deepObject list, an item that writes nothing takes no index"
    )
    check(
        String(decoding: lists[4].body?.data ?? Data(), as: UTF8.self).removingPercentEncoding
            == "expand[0]=customer&items[0][price]=p 1&items[0][quantity]=2&items[1][price]=p2",
        "a form whose encodings are deepObject indexes its lists, objects in them too"
    )

    let paged = EndpointClient(environment: apiEnvironment, transport: PageServer())
    var ids: [String] = []
    for try await page in paged.pages(for: .listNotes(limit: 2), next: .listNotes) { ids += page.value.data.map(\.id) }
    check(ids == ["n1", "n2", "n3"], "Stripe's lists: pages follow has_more and starting_after")
    ids = []
    for try await page in paged.pages(for: .listNumberedNotes(), next: .listNumberedNotes) {
        ids += (page.value.data ?? []).map(\.id)
    }
    check(ids == ["n1", "n2"], "numbered pages end at the last page")
    ids = []
    for try await note in paged.pages(for: .listLinkedNotes(), next: .listLinkedNotes).elements { ids.append(note.id) }
    check(ids == ["n1", "n2"], "pages follow the Link header")

}

/// Redaction by a client with the default settings: each kind declares the name its key goes under.
func redaction() async throws {
    let leaky = EndpointClient(environment: apiEnvironment, transport: Recorder([(500, "{}"), (500, "{}")]))
    let header = await printedError {
        _ = try await leaky.response(for: .listThingsWithHeaderKey(), using: AccessToken("header-secret"))
    }
    check(
        header.contains("X-Shape-Key") && !header.contains("header-secret"),
        "an API key in a header is redacted from the error and its cURL command"
    )
    let query = await printedError {
        _ = try await leaky.response(for: .listThingsWithQueryKey(), using: AccessToken("query-secret"))
    }
    check(
        query.contains("shape_code=") && !query.contains("query-secret"),
        "an API key in the query is redacted from the error and its cURL command"
    )

    let recorder = Recorder([(200, "[]")])
    let moving = EndpointClient(
        environment: apiEnvironment,
        transport: RedirectingTo("https://elsewhere.test/things", recorder)
    )
    _ = try await moving.response(for: .listThingsWithHeaderKey(), using: AccessToken("header-secret"))
    let sent = await recorder.sent
    check(
        sent.count == 1 && sent[0].url.host == "elsewhere.test" && sent[0].headers["X-Shape-Key"] == nil,
        "a redirect to another origin drops the API key's header"
    )
}

/// The error `call` throws, with its cURL command, as printed; "no error" when it throws none.
func printedError(_ call: () async throws -> Void) async -> String {
    do {
        try await call()
        return "no error"
    } catch {
        return "\(error) \((error as? EndpointError)?.curlCommand ?? "")"
    }
}

/// Redirects every request to the API's origin to `location`, and hands the rest to `next`.
struct RedirectingTo: Transport {
    let location: String
    let next: Recorder

    init(_ location: String, _ next: Recorder) {
        self.location = location
        self.next = next
    }

    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        guard request.url.host == "api.example.test" else { return try await next.send(request, options: options) }
        return TransportResponse(statusCode: 302, headers: ["Location": location], url: request.url, data: Data())
    }
}

/// RFC 3339 as section 5.6 has it, beyond what Foundation's ISO 8601 styles read; and what it is not.
func dates() throws {
    let reads: [(String, Double)] = [
        ("1970-01-01T00:00:00Z", 0), ("1970-01-01t00:00:00z", 0), ("2026-11-27T10:00:00.250Z", 1_795_773_600.25),
        ("2026-11-27T12:30:00+02:30", 1_795_773_600), ("2026-11-27T00:00:00.123456-10:00", 1_795_773_600.123456),
        ("0246-04-26T12:02:43+20:59", -54_394_275_377), ("2000-02-29T23:59:60Z", 951_868_800),
    ]
    for (text, seconds) in reads {
        let date = RFC3339.date(text)
        check(
            date.map { abs($0.timeIntervalSince1970 - seconds) < 0.000_01 } == true,
            "RFC 3339 \(text) reads as \(seconds) s (read \(date.map { "\($0.timeIntervalSince1970)" } ?? "nothing"))"
        )
    }
    for text in [
        "2026-11-27T10:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-27T24:00:00Z",
        "2026-11-27T10:00:00.Z", "2026-11-27T10:00:00+24:00", "2026-11-27 10:00:00Z", "2026-11-27T10:00:00Zjunk", "",
    ] {
        check(RFC3339.date(text) == nil, "\(text.debugDescription) is not RFC 3339 date-time text")
    }
    let encoded = try OpenAPICoding.encoder.encode([Date(timeIntervalSince1970: 1_795_773_600.25)])
    check(
        String(decoding: encoded, as: UTF8.self) == #"["2026-11-27T10:00:00.250Z"]"#,
        "a fraction of a second is sent"
    )
}

/// A model with an `id` loads by its ID through a `ModelLoader`; a write goes in the overlay's outbox group.
func loaderAndOutbox() async throws {
    let client = EndpointClient(
        environment: apiEnvironment,
        transport: Recorder([
            (200, #"{"id": 42, "serial": "SN-1", "name": "lamp", "created_at": "2026-11-27T10:00:00Z"}"#)
        ]),
        defaults: RequestDefaults(decoder: OpenAPICoding.decoder)
    )
    let loader = ModelLoader<Thing>(client: client, using: token) { .getThing(thingId: $0) }
    let loaded = try await loader.loadModel(withID: 42)
    check(loaded.id == 42 && loaded.name == "lamp", "a model with an id loads by its ID through a ModelLoader")
    check(Problem(code: "gone").id == "gone", "a model is identified by the member the overlay names")

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let outbox = try Outbox<EndpointKinds.Basic>(directory: directory, client: client, startsSending: false) {
        BasicCredentials(user: "u", password: "p")
    }
    let write = try outbox.enqueue(.deleteThing(thingId: 7))
    check(write.group == "things/7", "a generated write is queued in the overlay's outbox group (\(write.group))")
}

try dates()
try await requestsAndModels()
try await loaderAndOutbox()
try await documentedErrors()
try await scalarUnions()
try await queriesAndPages()
try await redaction()
print("openapi runtime checks: all passed")
