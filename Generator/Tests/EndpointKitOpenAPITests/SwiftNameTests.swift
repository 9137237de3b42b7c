#if OpenAPI
import Testing

@testable import EndpointKitOpenAPI

@Suite("Swift names from a description's names")
struct SwiftNameTests {
    @Test(
        "operationIds become lowerCamelCase members",
        arguments: [
            ("GetCustomersCustomer", "getCustomersCustomer"), ("get_files_id", "getFilesId"),
            ("getLinodeInstances", "getLinodeInstances"), ("HTTPServer_list", "httpServerList"),
            ("post /v1/things/{id}", "postV1ThingsId"), ("2fa-enable", "_2faEnable"), ("", "value"),
        ]
    )
    func members(raw: String, expected: String) {
        #expect(SwiftName.member(raw) == expected)
    }

    @Test(
        "schema names become UpperCamelCase types",
        arguments: [
            ("account", "Account"), ("issuing.card", "IssuingCard"),
            ("file_version_legal_hold", "FileVersionLegalHold"),
            ("3DSecure", "_3DSecure"),
        ]
    )
    func types(raw: String, expected: String) {
        #expect(SwiftName.type(raw) == expected)
    }

    @Test("Keywords are escaped where they are used; other names are not")
    func keywords() {
        #expect(SwiftName.escaped("default") == "`default`")
        #expect(SwiftName.escaped("self") == "`self`")
        #expect(SwiftName.escaped("object") == "object")
    }

    @Test("A literal escapes quotes, backslashes and control characters, so no text ends the string early")
    func literals() {
        #expect(SwiftName.literal("a\"b\\c\nd\u{7}") == "\"a\\\"b\\\\c\\nd\\u{7}\"")
        #expect(SwiftName.literal("\\(danger)") == "\"\\\\(danger)\"")
    }

    @Test("A model named like a type the generated code uses is renamed, predictably")
    func reservedNames() {
        #expect(SchemaMapper.unreserved("AccessToken") == "AccessTokenModel")
        #expect(SchemaMapper.unreserved("Error") == "ErrorModel")
        // Models with an id conform to Identifiable by that name.
        #expect(SchemaMapper.unreserved("Identifiable") == "IdentifiableModel")
        #expect(SchemaMapper.unreserved("Customer") == "Customer")
    }
}
#endif
