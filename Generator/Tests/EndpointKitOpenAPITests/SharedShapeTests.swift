#if OpenAPI
import Testing

@testable import EndpointKitOpenAPI

@Suite("Inline shapes several operations share are named by what they share; scalar unions go in a path")
struct SharedShapeTests {
    private func endpoints() throws -> String {
        let module = OpenAPIGenerator().generate(from: try Fixtures.description("shared-shapes.yaml"))
        return module.files.filter { $0.name.hasPrefix("Endpoints") }.map(\.text).joined()
    }

    @Test("A shape two operations share takes the name their parameters share, the same on every run")
    func sharedNames() throws {
        let endpoints = try endpoints()
        #expect(endpoints.contains("enterpriseAdminGetAuditLog(order: Order? = nil)"), "\(endpoints)")
        #expect(endpoints.contains("searchRepos(order: Order? = nil, direction: SearchReposDirection? = nil)"))
        #expect(endpoints.contains("issuesList(direction: Direction? = nil)"))
        #expect(endpoints.contains("reposListForOrg(org: String, direction: Direction? = nil)"))
        #expect(try self.endpoints() == endpoints)
    }

    @Test("A path parameter that is an integer or a string is generated, written as its value's text")
    func scalarUnionInPath() throws {
        let module = OpenAPIGenerator().generate(from: try Fixtures.description("shared-shapes.yaml"))
        #expect(module.operations == 5)
        let text = module.files.map(\.text).joined()
        #expect(text.contains("actionsGetWorkflow(workflowId: ActionsGetWorkflowWorkflowId)"))
        #expect(text.contains("extension ActionsGetWorkflowWorkflowId: CustomStringConvertible, QueryValue"))
    }
}
#endif
