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

    @Test("A description that declares no security is not generated without an overlay's default kind")
    func noSecurity() throws {
        let petstore = try Fixtures.description("petstore.yaml")
        let (none, notes) = Fixtures.plans(petstore)
        #expect(none.isEmpty)
        #expect(notes.count == 3)
        #expect(notes.allSatisfy { $0.operationSkipped && $0.description.contains("name a kind in the overlay") })
        let (plans, _) = Fixtures.plans(petstore, overlay: try Overlay(yaml: "kinds:\n  default: public\n"))
        #expect(plans.map(\.kinds) == [[.public], [.public], [.public]])
    }
}
#endif
