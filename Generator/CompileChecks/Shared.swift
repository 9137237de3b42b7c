// Declarations every compile check of the generated security shapes uses: a client, its environment, a folder,
// and one credential of each type. Type-checked with the module scripts/openapi-compile-checks.sh generates from
// Generator/Tests/EndpointKitOpenAPITests/Fixtures/security-shapes.yaml.
import EndpointKit
import Foundation

let environment = ServerEnvironment(baseURL: URL(fileURLWithPath: "/"))
let client = EndpointClient(environment: environment)
let folder = URL(fileURLWithPath: "/")
let token = AccessToken("token")
let credentials = BasicCredentials(user: "user", password: "password")
