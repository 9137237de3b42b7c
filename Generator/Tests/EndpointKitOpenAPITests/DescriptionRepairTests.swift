#if OpenAPI
import OpenAPIKit
import Testing

@testable import EndpointKitOpenAPI

@Suite("One keyword never refuses a whole description: what is set right or set aside is reported")
struct DescriptionRepairTests {
    @Test("A bound beyond Int64 is dropped, a boolean exclusive bound read as 3.0 defines it; the rest generates")
    func mixedVersions() throws {
        let description = try Fixtures.description("mixed-versions.yaml")
        let notes = description.setAside.map(\.description)
        #expect(notes.filter { $0.contains("a bound beyond Int64 is dropped") }.count == 2, "\(notes)")
        #expect(notes.contains { $0.contains("exclusiveMinimum: true") && $0.contains("read as 3.0 defines it") })
        #expect(notes.contains { $0.contains("exclusiveMaximum: false") })
        let counter = try #require(description.document.components.schemas["Counter"])
        let value = try #require(counter.objectContext?.properties["value"]?.integerContext)
        #expect(value.minimum?.value == 0 && value.minimum?.exclusive == true)

        let module = OpenAPIGenerator().generate(from: description)
        #expect(module.operations == 1)
        let report = module.notes.map(\.description)
        #expect(report.contains { $0.contains("getCounter") && $0.contains("text/event-stream is left out") })
    }

    @Test(
        "Numbers past Int64, written any way, and none within it",
        arguments: [
            ("9223372036854776000", true), ("9223372036854775807", false), ("-9223372036854775809", true),
            ("1e19", true), ("1.5", false), ("100", false), ("abc", false),
        ]
    )
    func beyondInt64(_ text: String, _ beyond: Bool) {
        #expect(DescriptionRepair.isBeyondInt64(text) == beyond)
    }
}
#endif
