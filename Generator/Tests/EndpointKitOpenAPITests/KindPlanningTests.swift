#if OpenAPI
import Testing

@testable import EndpointKitOpenAPI

@Suite("Each operation's security becomes its kind")
struct KindPlanningTests {
    /// The kinds of each operation of the security-shapes fixture, by operationId.
    private func kinds(overlay: Overlay = Overlay()) throws -> [String: [KindReference]] {
        let (plans, _) = Fixtures.plans(try Fixtures.description("security-shapes.yaml"), overlay: overlay)
        return Dictionary(uniqueKeysWithValues: plans.map { ($0.label, $0.kinds) })
    }

    @Test("Public, bearer (the document's default), basic and OAuth 2.0 use the kinds EndpointKit ships")
    func shippedKinds() throws {
        let kinds = try kinds()
        #expect(kinds["listPublicThings"] == [.public])
        #expect(kinds["getThing"] == [.bearer])
        #expect(kinds["deleteThing"] == [.basic])
        #expect(kinds["listThingsWithOAuth"] == [.bearer])
    }

    @Test("An API key gets a kind per scheme, wherever it is placed, whose key is passed with using:")
    func apiKeys() throws {
        let kinds = try kinds()
        #expect(
            kinds["listThingsWithHeaderKey"] == [KindReference(type: "SecurityKinds.HeaderKey", data: "AccessToken")]
        )
        #expect(kinds["listThingsWithQueryKey"] == [KindReference(type: "SecurityKinds.QueryKey", data: "AccessToken")])
        #expect(
            kinds["listThingsWithCookieKey"] == [KindReference(type: "SecurityKinds.CookieKey", data: "AccessToken")]
        )
    }

    @Test("OR gives one kind whose credential the caller picks; AND one that holds every credential")
    func combinations() throws {
        let kinds = try kinds()
        #expect(
            kinds["createThingWithEither"]
                == [KindReference(type: "SecurityKinds.BasicOrBearer", data: "SecurityKinds.BasicOrBearer.Credential")]
        )
        #expect(
            kinds["listThingsWithBoth"]
                == [
                    KindReference(
                        type: "SecurityKinds.BearerAuthAndHeaderKey",
                        data: "SecurityKinds.BearerAuthAndHeaderKey.Credentials"
                    )
                ]
        )
    }

    @Test("Optional security ({} among the alternatives) gives the public form too")
    func optional() throws {
        #expect(try kinds()["listThingsOptionally"] == [.public, .bearer])
    }

    @Test("A scheme with no kind (HTTP digest) leaves its operation out, and says so")
    func undecided() throws {
        let (plans, notes) = Fixtures.plans(try Fixtures.description("security-shapes.yaml"))
        #expect(!plans.contains { $0.label == "listThingsWithDigest" })
        #expect(
            notes.map(\.description) == [
                "listThingsWithDigest: no kind: HTTP scheme \"digest\" of \"digestAuth\" has no kind (operation not generated)"
            ]
        )
    }

    @Test("OAuth 2.0 scopes reach the factory's plan")
    func scopes() throws {
        let (plans, _) = Fixtures.plans(try Fixtures.description("security-shapes.yaml"))
        #expect(plans.first { $0.label == "listThingsWithOAuth" }?.scopes == ["read:things"])
    }

    @Test("The overlay: bearer tokens owned by a middleware, and a kind named per operation")
    func overlay() throws {
        let overlay = try Overlay(
            yaml: """
                kinds:
                  bearerTokens: middleware
                  operations:
                    deleteThing: headerKey
                """
        )
        let kinds = try kinds(overlay: overlay)
        #expect(kinds["getThing"] == [.authenticated])
        #expect(kinds["deleteThing"] == [KindReference(type: "SecurityKinds.HeaderKey", data: "AccessToken")])
        #expect(kinds["listPublicThings"] == [.public])
    }

    @Test("A description that declares no security: public and callable with a token, said once with the count")
    func noSecurity() throws {
        let petstore = try Fixtures.description("petstore.yaml")
        let (plans, notes) = Fixtures.plans(petstore)
        #expect(plans.map(\.kinds) == [[.public, .bearer], [.public, .bearer], [.public, .bearer]])
        #expect(notes.count == 1)
        #expect(notes.first?.operationSkipped == false)
        #expect(notes.first?.description.contains("3 operations are public and callable with a bearer token") == true)
        #expect(notes.first?.description.contains("kinds: { every: bearer }") == true)
        let (named, _) = Fixtures.plans(petstore, overlay: try Overlay(yaml: "kinds:\n  default: public\n"))
        #expect(named.map(\.kinds) == [[.public], [.public], [.public]])
        let (required, quiet) = Fixtures.plans(petstore, overlay: try Overlay(yaml: "kinds:\n  every: bearer\n"))
        #expect(required.map(\.kinds) == [[.bearer], [.bearer], [.bearer]])
        #expect(quiet.isEmpty)
    }

    @Test("A token made optional by the overlay, for one operation or for every one: the public kind beside it")
    func optionalToken() throws {
        let one = try kinds(overlay: Overlay(yaml: "kinds:\n  operations:\n    listPublicThings: bearer?\n"))
        #expect(one["listPublicThings"] == [.public, .bearer])
        #expect(one["getThing"] == [.bearer])
        let every = try kinds(overlay: Overlay(yaml: "kinds:\n  every: basic?\n"))
        #expect(every["getThing"] == [.public, .basic])
        #expect(every["listThingsWithOAuth"] == [.public, .basic])
        #expect(try kinds(overlay: Overlay(yaml: "kinds:\n  every: public?\n"))["getThing"] == [.public])
    }

    @Test("A kind given to an operationId the description lacks is an error: the real operation keeps its own")
    func unmatchedKindName() throws {
        let overlay = try Overlay(yaml: "kinds:\n  operations:\n    listPublicThing: bearer\n")
        let (plans, notes) = Fixtures.plans(try Fixtures.description("security-shapes.yaml"), overlay: overlay)
        #expect(plans.first { $0.label == "listPublicThings" }?.kinds == [.public])
        let note = try #require(notes.first { $0.operation == "kinds.operations.listPublicThing" })
        #expect(note.issue == .overlay("the description has no operation with this operationId"))
        let report = GenerationReport(notes)
        #expect(report.failure(generated: plans.count, allowLeftOut: true) != nil)
    }

    @Test("bearerTokens takes middleware or nothing: another value is an error, not ignored")
    func bearerTokensValue() {
        #expect(throws: DecodingError.self) { try Overlay(yaml: "kinds:\n  bearerTokens: midleware\n") }
    }
}
#endif
