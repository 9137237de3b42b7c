import EndpointKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct CURLIntegrationTests {
    static let cases: [(String, Endpoint<EndpointKinds.Private, AnythingEcho>)] = [
        (
            "GET with hostile query values",
            Endpoint(path: "anything/it's here", query: ["q": "a+b & c=d #x", "quote": "'\"", "tags": ["ü", "$HOME"]])
        ),
        ("POST JSON", Endpoint(method: .post, path: "anything/items", body: JSONBody(["name": "it's \"tea\" $(id)"]))),
        ("PUT form", Endpoint(method: .put, path: "anything/form", body: FormBody(["user": "ann bob", "x": "`id`"]))),
        (
            "PATCH binary data",
            Endpoint(
                method: .patch,
                path: "anything/blob",
                headers: ["X-Trace": "a'b\"c"],
                body: DataBody(Data([0x00, 0x27, 0x5C, 0xFF, 0x0A, 0x41]), contentType: "application/octet-stream")
            )
        ),
        (
            "POST multipart",
            Endpoint(
                method: .post,
                path: "anything/upload",
                body: MultipartBody([.field("title", "it's"), .file("f", filename: "a.txt", data: Data("x'y".utf8))])
            )
        ),
    ]

    @Test("The curl command sends the same request as the framework", arguments: 0..<cases.count)
    func curlMatchesFramework(index: Int) async throws {
        let (_, endpoint) = Self.cases[index]
        let client = try TestServers.httpbinClient()
        let token = AccessToken("s3cr3t 'token'")

        let viaFramework = try await client.response(for: endpoint, using: token)
        let command = try client.curlCommand(for: endpoint, using: token, revealingSecrets: true)
        let viaCURL = try JSONDecoder().decode(
            AnythingEcho.self,
            from: try await Shell.output(of: command.command + " -sS")
        )

        #expect(viaCURL.method == viaFramework.method)
        #expect(viaCURL.args == viaFramework.args)
        #expect(viaCURL.form == viaFramework.form)
        #expect(viaCURL.files == viaFramework.files)
        #expect(viaCURL.json == viaFramework.json)
        if viaFramework.headers["Content-Type"]?.hasPrefix("multipart/") != true {
            #expect(viaCURL.data == viaFramework.data)
            #expect(viaCURL.headers["Content-Type"] == viaFramework.headers["Content-Type"])
            #expect(viaCURL.headers["Content-Length"] == viaFramework.headers["Content-Length"])
        }
        for header in ["Accept", "Authorization", "User-Agent", "X-Trace"] {
            #expect(viaCURL.headers[header] == viaFramework.headers[header], "header \(header)")
        }
    }

    @Test("The redacted command holds no secret")
    func redactedByDefault() throws {
        let client = try TestServers.httpbinClient()

        let command = try client.curlCommand(for: Self.cases[0].1, using: AccessToken("s3cr3t"))

        #expect(!command.command.contains("s3cr3t"))
        #expect(command.command.contains("Authorization: <redacted>"))
    }
}

/// Runs a command line with bash and returns its standard output.
enum Shell {
    struct Failure: Error, CustomStringConvertible {
        var status: Int32
        var errorOutput: String
        /// The end of what the command printed, for a command that reports its failures there (the demo).
        var outputTail = ""
        var description: String {
            let tail = outputTail.isEmpty ? "" : "; output ends: \(outputTail)"
            return "bash exited with \(status): \(errorOutput)\(tail)"
        }
    }

    /// `command`'s output, waited for on a thread of its own: a process that runs for seconds (mitmdump, the demo)
    /// must not hold one of the few threads every other test's tasks run on.
    static func output(of command: String) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try run(command) })
            }
        }
    }

    static func run(_ command: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", command]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                status: process.terminationStatus,
                errorOutput: String(decoding: errorData, as: UTF8.self),
                outputTail: String(decoding: data.suffix(1_500), as: UTF8.self)
            )
        }
        return data
    }
}
