#if OpenAPI
import Foundation
import Testing

@testable import EndpointKitOpenAPI

@Suite("The Swift the generator writes")
struct GeneratedSourceTests {
    private func module(_ name: String, overlay: Overlay = Overlay()) throws -> [String: String] {
        let generated = OpenAPIGenerator(overlay: overlay).generate(from: try Fixtures.description(name))
        return Dictionary(uniqueKeysWithValues: generated.files.map { ($0.name, $0.text) })
    }

    @Test("A path parameter is interpolated under its name, so the endpoint's template is the description's path")
    func pathTemplate() throws {
        let endpoints = try #require(try module("security-shapes.yaml")["Endpoints.swift"])
        #expect(endpoints.contains("Self.generated(.get, \"things/\\(thingId, as: \"thingId\")\")"))
        #expect(endpoints.contains("public static func getThing(thingId: Int64) -> Self"))
    }

    @Test("A factory is declared once per kind, in an extension constrained to that kind and its response")
    func constrainedExtensions() throws {
        let endpoints = try #require(try module("security-shapes.yaml")["Endpoints.swift"])
        #expect(
            endpoints.contains(
                "extension Endpoint where Kind == EndpointKinds.Public, Response == [Thing] {\n"
                    + "    /// `GET /optional/things` (`listThingsOptionally`)."
            )
        )
        #expect(
            endpoints.contains(
                "extension Endpoint where Kind == EndpointKinds.Private, Response == [Thing] {\n"
                    + "    /// `GET /optional/things` (`listThingsOptionally`)."
            )
        )
        #expect(endpoints.contains("extension Endpoint where Kind == EndpointKinds.Basic, Response == EmptyResponse {"))
    }

    @Test("Query items are typed; an optional one is left out of the request when nil")
    func query() throws {
        let endpoints = try #require(
            try module("petstore.yaml", overlay: Overlay(yaml: "kinds:\n  default: public\n"))["Endpoints.swift"]
        )
        #expect(endpoints.contains("public static func listPets(limit: Int? = nil, tags: [String]? = nil) -> Self"))
        #expect(endpoints.contains("Self.generated(.get, \"pets\", query: [\"limit\": limit, \"tags\": tags])"))
        #expect(endpoints.contains("body: JSONBody(body, encoder: OpenAPICoding.encoder))"))
    }

    @Test(
        "A type that holds itself directly is a final class; enums are open; unions follow a discriminator; a value or the empty string is OrEmpty; undeclared members are kept; a required read-only member is optional; a required id makes a model Identifiable"
    )
    func models() throws {
        let shapes = try #require(try module("security-shapes.yaml")["Models.swift"])
        #expect(shapes.contains("public final class Thing: Codable, Sendable, Identifiable {"))
        #expect(shapes.contains("public let parent: Thing?"))
        // Required, and read-only: the server sends it, and a request must not.
        #expect(shapes.contains("public let serial: String?"))
        #expect(shapes.contains("public let name: String\n"))
        #expect(shapes.contains("case unknown(String)"))
        #expect(shapes.contains("public static let listedValues: [String] = [\"active\", \"retired\"]"))
        // anyOf a string and the empty string alone (Stripe's way to clear a field).
        #expect(shapes.contains("public let nickname: OrEmpty<String>?"))
        // Coding keys are listed as enum cases are, several to a line.
        #expect(
            shapes.contains(
                "case id, serial, name, status, createdAt = \"created_at\", parent, tags, settings, nickname\n"
            )
        )
        // additionalProperties beside properties: the other members in a dictionary, coded beside the declared.
        #expect(shapes.contains("public var additionalProperties: [String: Int]\n"))
        #expect(shapes.contains("enum CodingKeys: String, CodingKey, CaseIterable {\n        case theme\n"))
        let pets = try #require(
            try module("petstore.yaml", overlay: Overlay(yaml: "kinds:\n  default: public\n"))["Models.swift"]
        )
        #expect(pets.contains("public struct Pet: Codable, Sendable, Identifiable {"))
        #expect(pets.contains("public indirect enum PetKind: Codable, Sendable {"))
        #expect(pets.contains("case \"cat\": self = .cat(try Cat(from: decoder))"))
        #expect(pets.contains("public typealias Pets = [Pet]"))
        #expect(pets.contains("public struct ErrorModel: Codable, Sendable {"))
    }
}

extension GeneratedSourceTests {
    @Test("Documented error bodies: named in the factory's documentation; several types get an enum by status")
    func errors() throws {
        let endpoints = try #require(try module("security-shapes.yaml")["Endpoints.swift"])
        #expect(
            endpoints.contains(
                "/// Documented errors: 404 `Problem`, default `Problem`; read one from the `EndpointError` with "
                    + "`error.documentedBody(as: Problem.self)`."
            )
        )
        #expect(endpoints.contains("public enum DeleteThingError: Sendable {"))
        #expect(
            endpoints.contains("case 409: self = .status409(try error.documentedBody(as: DeleteThingError409.self))")
        )
        #expect(endpoints.contains("case 500..<600: self = .status5XX(try error.documentedBody(as: Problem.self))"))
        #expect(endpoints.contains("default: throw DocumentedErrorMissing(statusCode: error.statusCode)"))
    }

    @Test("An operation's error enum takes another name when a model has its name (AWS's BatchDeleteImportDataError)")
    func errorEnumBesideModel() throws {
        let module = OpenAPIGenerator().generate(from: try Fixtures.description("error-names.yaml"))
        let text = module.files.map(\.text).joined()
        #expect(text.contains("public struct BatchDeleteImportDataError: Codable, Sendable"))
        #expect(text.contains("public enum BatchDeleteImportDataError2: Sendable"))
        #expect(text.contains("read one from the `EndpointError` with `BatchDeleteImportDataError2(error)`"))
        #expect(text.components(separatedBy: " BatchDeleteImportDataError:").count == 2, "declared once")
    }

    @Test("Next-page rules from the description: Stripe's has_more, numbered pages (through a pointer), a Link header")
    func paging() throws {
        let endpoints = try #require(try module("security-shapes.yaml")["Endpoints.swift"])
        #expect(
            endpoints.contains(
                "public static var listNotes: Self { .cursor(parameter: \"starting_after\") { $0.hasMore ? "
                    + "$0.data.last?.id : nil } }"
            )
        )
        #expect(
            endpoints.contains(
                "public static var listNumberedNotes: Self { .pageNumber(parameter: \"page\") { ($0.value.page ?? 1) >= "
                    + "($0.value.pages ?? 1) } }"
            )
        )
        #expect(endpoints.contains("extension NextPage where Kind == EndpointKinds.Public, Value == [Note] {"))
        #expect(endpoints.contains("public static var listLinkedNotes: Self { .link }"))
        #expect(!endpoints.contains("public static var getThing: Self"))
    }

    @Test("An object parameter in deepObject style is sent as name[key]=value items; a union's inline shape is .object")
    func deepObject() throws {
        let files = try module("security-shapes.yaml")
        let endpoints = try #require(files["Endpoints.swift"])
        #expect(
            endpoints.contains(
                "query: [\"limit\": limit, \"status\": status], queryItems: DeepObjectQuery.items(named: \"created\", created)"
                    + " + DeepObjectQuery.items(named: \"expand\", expand)"
            )
        )
        #expect(try #require(files["Models.swift"]).contains("case object(ListPublicThingsCreatedCase1)"))
    }

    @Test("Writing a module replaces what an earlier run generated and leaves the user's own files alone")
    func writing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-write-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stale = folder.appendingPathComponent("Models9.swift")
        let own = folder.appendingPathComponent("Extras.swift")
        try Data("// swift-format-ignore-file\n// Generated by endpointkit-openapi from an OpenAPI description.\n".utf8)
            .write(to: stale)
        try Data("extension Thing {}\n".utf8).write(to: own)
        let module = OpenAPIGenerator().generate(from: try Fixtures.description("security-shapes.yaml"))
        try module.write(to: folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(
            names == ["Endpoints.swift", "Extras.swift", "Models.swift", "OpenAPISupport.swift", "SecurityKinds.swift"]
        )
    }

    @Test("A module too large for one file is split, in order, each file at most bytesPerFile bytes and a header")
    func splitting() async throws {
        let files = try await Fixtures.offPool {
            OpenAPIGenerator().generate(from: try Fixtures.real("linode-4.5.0")).files.map { ($0.name, $0.text) }
        }
        let models = files.map(\.0).filter { $0.hasPrefix("Models") }
        #expect(models.count > 1 && models.first == "Models1.swift")
        for (name, text) in files {
            #expect(text.utf8.count <= OpenAPIGenerator.bytesPerFile + 500, "\(name) has \(text.utf8.count) bytes")
        }
    }

    @Test("Each API-key kind declares the name its key goes under; a combined kind its parts' names; all are listed")
    func credentialNames() throws {
        let kinds = try #require(try module("security-shapes.yaml")["SecurityKinds.swift"])
        #expect(kinds.contains("public static let credentialNames = CredentialNames(headers: [\"X-Shape-Key\"])"))
        #expect(kinds.contains("public static let credentialNames = CredentialNames(queryItems: [\"shape_code\"])"))
        #expect(kinds.contains("public static let credentialNames = SecurityKinds.HeaderKey.credentialNames"))
        #expect(
            kinds.contains(
                "public static let credentialNames = CredentialNames(headers: [\"X-Shape-Key\"], queryItems: [\"shape_code\"])"
            )
        )
    }
}

extension GeneratedSourceTests {
    @Test(
        "A GET's body is left out: silently when it can hold nothing, named when it could, with its operation when required"
    )
    func bodiesOfGet() throws {
        let yaml = """
            openapi: 3.0.3
            info: {title: t, version: '1'}
            paths:
              /empty:
                get:
                  operationId: getEmpty
                  requestBody:
                    content:
                      application/x-www-form-urlencoded:
                        schema: {type: object, properties: {}, additionalProperties: false}
                  responses: {'200': {description: ok}}
              /filled:
                get:
                  operationId: getFilled
                  requestBody:
                    content:
                      application/json:
                        schema: {type: object, properties: {q: {type: string}}}
                  responses: {'200': {description: ok}}
              /required:
                get:
                  operationId: getRequired
                  requestBody:
                    required: true
                    content:
                      application/json:
                        schema: {type: object, properties: {q: {type: string}}}
                  responses: {'200': {description: ok}}
            """
        let overlay = try Overlay(yaml: "kinds:\n  default: public\n")
        let (plans, notes) = Fixtures.plans(try OpenAPIDescription(text: yaml), overlay: overlay)

        #expect(plans.map(\.label) == ["getEmpty", "getFilled"])
        #expect(plans.allSatisfy { $0.body == nil && !$0.arguments.contains { $0.place == .body } })
        #expect(
            notes.map(\.description) == [
                "getFilled: not supported: a GET request carries no body (parameter left out)",
                "getRequired: not supported: a GET request carries no body (operation not generated)",
            ]
        )
    }
}

extension GeneratedSourceTests {
    @Test(
        "The overlay names a factory and sets its options; it reports an operation the description lacks, and a group naming no path parameter"
    )
    func overlaySettings() throws {
        let overlay = try Overlay(
            yaml: """
                operations:
                  getThing:
                    name: thing
                    cached: false
                    cache: { noCache: true, maxAge: 60 }
                    logged: false
                  deleteThing:
                    outboxGroup: "things/{thingId}"
                  createThingWithEither:
                    outboxGroup: "things/{thingId}"
                  getThng:
                    cached: false
                """
        )
        let description = try Fixtures.description("security-shapes.yaml")
        let module = OpenAPIGenerator(overlay: overlay).generate(from: description)
        let endpoints = module.files.filter { $0.name.hasPrefix("Endpoints") }.map(\.text).joined()

        #expect(endpoints.contains("public static func thing(thingId: Int64) -> Self"))
        #expect(!endpoints.contains("func getThing("))
        #expect(endpoints.contains("endpoint.options.isCached = false\n"))
        #expect(endpoints.contains("endpoint.options.isLogged = false\n"))
        #expect(
            endpoints.contains(
                "endpoint.options.cacheDirectives = CacheDirectives(noCache: true, maxAge: .seconds(60))"
            )
        )
        #expect(endpoints.contains("endpoint.options.outboxGroup = \"things/\\(thingId)\"\n"))
        #expect(endpoints.components(separatedBy: "options.outboxGroup").count == 2)
        let notes = module.notes.map(\.description)
        #expect(
            notes.contains(
                "createThingWithEither: overlay: outboxGroup names {thingId}, not a path parameter: no group is set"
            )
        )
        #expect(notes.contains("operations.getThng: overlay: the description has no such operation"))
    }

    @Test("The overlay identifies a model by a member of another name; a setting that cannot apply is reported")
    func overlayModels() throws {
        let overlay = try Overlay(
            yaml: """
                models:
                  PageInfo: { id: page }
                  Problem: { id: detail }
                  Thing: { id: name }
                  Note: { id: missing }
                  Nothing: { id: id }
                """
        )
        let module = OpenAPIGenerator(overlay: overlay).generate(from: try Fixtures.description("security-shapes.yaml"))
        let models = module.files.filter { $0.name.hasPrefix("Models") }.map(\.text).joined()
        let notes = module.notes.map(\.description)

        #expect(models.contains("public struct PageInfo: Codable, Sendable, Identifiable {"))
        #expect(models.contains("public var id: Int { page }"))
        #expect(models.contains("public struct Problem: Codable, Sendable {"))
        #expect(
            notes.contains(
                "models.Problem: overlay: id: detail is not a required member of text, an integer or a UUID, so it cannot identify the model"
            )
        )
        #expect(
            notes.contains("models.Thing: overlay: id: the model has a member id of its own; name cannot be its id")
        )
        #expect(notes.contains("models.Note: overlay: id: the model has no member missing"))
        #expect(
            notes.contains(
                "models.Nothing: overlay: the module declares no object model of that name; its settings change nothing"
            )
        )
    }

    @Test("A setting the overlay does not know is an error that names it, at any level")
    func overlayTypos() {
        for yaml in [
            "kind:\n  default: public\n", "kinds:\n  defualt: public\n", "operations:\n  a:\n    cahced: false\n",
            "operations:\n  a:\n    cache: { maxage: 60 }\n", "models:\n  A:\n    key: id\n",
        ] {
            #expect(throws: DecodingError.self, "\(yaml)") { try Overlay(yaml: yaml) }
        }
        let error = #expect(throws: DecodingError.self) { try Overlay(yaml: "operations:\n  a:\n    cahced: false\n") }
        #expect("\(String(describing: error))".contains("no setting \"cahced\""))
    }
}

@Suite("Real descriptions: every operation generates")
struct RealDescriptionTests {
    @Test("Box 2.0: all 175 operations; one optional parameter left out, and named")
    func box() async throws {
        let (count, notes) = try await Fixtures.offPool {
            let (plans, notes) = Fixtures.plans(try Fixtures.real("box-2.0"))
            return (plans.count, notes.map(\.description))
        }
        #expect(count == 175)
        #expect(
            notes == [
                "get_search: not supported: query parameter \"mdfilters\" of type [MetadataFilter] (parameter left out)"
            ]
        )
    }

    @Test("Linode 4.5.0: all 220 operations, public ones public and the rest bearer; other servers named")
    func linode() async throws {
        let (count, notes, regions, account, servers) = try await Fixtures.offPool {
            let (plans, notes) = Fixtures.plans(try Fixtures.real("linode-4.5.0"))
            let kinds = { (label: String) in plans.first { $0.label == label }?.kinds }
            let servers = plans.first { $0.label == "getObjectStorageBuckets" }?.servers
            return (plans.count, notes.count, kinds("getRegions"), kinds("getAccount"), servers)
        }
        #expect(count == 220)
        #expect(notes == 0)
        #expect(regions == [.public])
        #expect(account == [.bearer])
        // Its object storage is served at /v4beta, which the factory's documentation says.
        #expect(servers == ["https://api.linode.com/v4beta"])
    }
}

extension GeneratedSourceTests {
    @Test("Keys OpenAPI does not define (a typo, a Swagger 2.0 leftover) are ignored, as vendor extensions are")
    func strayKeysIgnored() throws {
        let yaml = """
            openapi: 3.0.3
            info: {title: t, version: '1'}
            paths:
              /items:
                get:
                  operationId: listItems
                  produces: [application/json]
                  x-internal: true
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {type: object, properties: {id: {type: string, x-go-name: ID}}, sumary: typo}
            """
        let overlay = try Overlay(yaml: "kinds:\n  default: public\n")
        let (plans, notes) = Fixtures.plans(try OpenAPIDescription(text: yaml), overlay: overlay)

        #expect(plans.map(\.label) == ["listItems"])
        #expect(notes.isEmpty)
    }
}
#endif
