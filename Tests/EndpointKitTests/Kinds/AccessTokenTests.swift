import Testing

@testable import EndpointKit

@Suite(.timeLimit(.minutes(1))) struct AccessTokenTests {
    let token = AccessToken("s3cr3t-value")

    @Test("description, debugDescription and interpolation never show the value")
    func descriptions() {
        #expect(!token.description.contains("s3cr3t"))
        #expect(!token.debugDescription.contains("s3cr3t"))
        #expect(!"\(token)".contains("s3cr3t"))
        #expect(!String(reflecting: token).contains("s3cr3t"))
    }

    @Test("dump shows no value")
    func dumpOutput() {
        var output = ""
        dump(token, to: &output)

        #expect(!output.contains("s3cr3t"))
        #expect(output.contains("AccessToken"))
    }

    @Test("The value is available where it is sent")
    func value() {
        #expect(token.value == "s3cr3t-value")
    }
}
