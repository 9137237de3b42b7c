import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct HTTPHeadersTests {
    @Test("Names compare without case; setting a value replaces the field in place")
    func caseInsensitiveNames() {
        var headers: HTTPHeaders = ["content-type": "text/plain"]

        headers[.contentType] = "application/json"

        #expect(headers.count == 1)
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers.map(\.name.rawValue) == ["Content-Type"])
    }

    @Test("Adding keeps repeated fields; setting nil removes them all")
    func addAndRemove() {
        var headers = HTTPHeaders()
        headers.add("a", for: "X-Tag")
        headers.add("b", for: "x-tag")

        #expect(headers.filter { $0.name == "X-Tag" }.map(\.value) == ["a", "b"])
        headers["X-TAG"] = nil
        #expect(headers.isEmpty)
    }

    @Test("Defaults fill in only names that are missing")
    func mergingDefaults() {
        let own: HTTPHeaders = ["Accept": "text/csv"]
        let defaults: HTTPHeaders = ["accept": "application/json", "User-Agent": "x"]

        let merged = own.merging(defaults: defaults)

        #expect(merged[.accept] == "text/csv")
        #expect(merged[.userAgent] == "x")
    }

    @Test("Descriptions redact credentials")
    func redactedDescription() {
        let headers: HTTPHeaders = [
            .authorization: "Bearer s3cret", .cookie: "session=abc", "X-API-Key": "k-1", .accept: "*/*",
        ]

        #expect(!headers.description.contains("s3cret"))
        #expect(!headers.description.contains("abc"))
        #expect(!headers.description.contains("k-1"))
        #expect(headers.description.contains("Accept: */*"))
    }
}
