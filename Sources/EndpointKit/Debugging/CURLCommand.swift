import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as a `curl` command you can paste into bash or zsh to send the same request.
///
///     print(try client.curlCommand(for: .search(for: "tea"), using: token))
///     // curl -X 'GET' 'https://api.example.com/v1/search?q=tea' -H 'Accept: application/json' \
///     //   -H 'Authorization: <redacted>' -H 'User-Agent: EndpointKit/0.7.0'
///
/// Every argument is single-quoted, so no character in a URL, header or body is interpreted by the shell; a
/// body that is not printable UTF-8 is read from `printf` with octal escapes (`@<(printf '\000…')`). Secrets
/// are redacted unless you opt in: `Authorization`, `Proxy-Authorization`, `Cookie`, API-key headers, the
/// client's ``RequestDefaults/sensitiveHeaders``, URL user info and secret query values. A file body is sent
/// with `--data-binary @file`, a stream body with `--data-binary @-` (pipe the data in).
public struct CURLCommand: Sendable, CustomStringConvertible {
    /// The command line.
    public let command: String

    /// Describes `request`, whose body is `httpBody`, `bodyFileURL` or a stream.
    ///
    /// - Parameters:
    ///   - request: The request to describe.
    ///   - bodyFileURL: A file that holds the body, or `nil`.
    ///   - sensitiveHeaders: More header names whose values are redacted.
    ///   - revealingSecrets: Shows every secret as it is, for reproducing a call by hand; keep such output
    ///     out of logs.
    public init(
        _ request: URLRequest,
        bodyFileURL: URL? = nil,
        sensitiveHeaders: Set<HTTPHeaders.Name> = [],
        revealingSecrets: Bool = false
    ) {
        var headers = HTTPHeaders()
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers.add(value, for: HTTPHeaders.Name(name)) }
        let body: TransportRequest.Body?
        if let file = bodyFileURL {
            body = try? TransportRequest.Body.file(file)
        } else if let data = request.httpBody {
            body = .data(data)
        } else if request.httpBodyStream != nil {
            body = .chunks { AsyncThrowingStream { $0.finish() } }
        } else {
            body = nil
        }
        var redactor = Redactor()
        redactor.extraHeaders = sensitiveHeaders
        self.init(
            method: HTTPMethod(request.httpMethod ?? "GET"),
            url: request.url,
            headers: headers,
            body: body,
            fileFallback: bodyFileURL,
            redactor: redactor,
            revealingSecrets: revealingSecrets
        )
    }

    /// Describes a prepared ``TransportRequest``.
    public init(
        _ request: TransportRequest,
        sensitiveHeaders: Set<HTTPHeaders.Name> = [],
        revealingSecrets: Bool = false
    ) {
        var redactor = Redactor()
        redactor.extraHeaders = sensitiveHeaders
        self.init(request, redactor: redactor, revealingSecrets: revealingSecrets)
    }

    init(_ request: TransportRequest, redactor: Redactor, revealingSecrets: Bool) {
        self.init(
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
            fileFallback: nil,
            redactor: redactor,
            revealingSecrets: revealingSecrets
        )
    }

    private init(
        method: HTTPMethod,
        url: URL?,
        headers: HTTPHeaders,
        body: TransportRequest.Body?,
        fileFallback: URL?,
        redactor: Redactor,
        revealingSecrets: Bool
    ) {
        var parts = ["curl"]
        parts.append(method == .head ? "--head" : "-X \(Self.quoted(method.rawValue))")
        let shownURL = url.map { revealingSecrets ? $0.absoluteString : redactor.redactedString(for: $0) }
        parts.append(Self.quoted(shownURL ?? ""))
        for field in redactor.redacted(headers, revealing: revealingSecrets) {
            parts.append("-H " + Self.quoted("\(field.name.rawValue): \(field.value)"))
        }
        if let file = body?.fileURL ?? fileFallback {
            parts.append("--data-binary " + Self.quoted("@" + file.path))
        } else if let data = body?.data {
            parts.append("--data-binary " + Self.quotedBody(data))
        } else if body != nil {
            parts.append("--data-binary @-")
        }
        command = parts.joined(separator: " ")
    }

    /// The command line.
    public var description: String { command }

    /// `text` in single quotes; a `'` inside becomes `'\''`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingScalars(of: "'", with: #"'\''"#) + "'"
    }

    /// A `--data-binary` argument: the body in single quotes when it is printable UTF-8, otherwise read from
    /// `printf` with octal escapes, because a shell argument cannot hold a NUL byte (nor start with `@`, which
    /// curl reads as a file name).
    static func quotedBody(_ body: Data) -> String {
        if let text = String(data: body, encoding: .utf8), !text.hasPrefix("@"),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" })
        {
            return quoted(text)
        }
        var format = ""
        let special: Set<UInt8> = [UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "%")]
        for byte in body {
            let isPlain = (0x20...0x7E).contains(byte) && !special.contains(byte)
            format += isPlain ? String(UnicodeScalar(byte)) : octal(byte)
        }
        return "@<(printf '\(format)')"
    }

    private static func octal(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 8)
        return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
