import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one exchange becomes a redacted HAR entry.
struct HARRecord {
    let redaction: HARRedaction
    let maximumBodySize: Int

    /// The request as HAR keeps it, and the secrets taken out of it (for the bodies).
    func request(_ request: TransportRequest, body: Data?) -> (HARArchive.Request, Set<String>) {
        let (headers, headerSecrets) = redaction.redacted(request.headers)
        let (url, query, querySecrets) = redaction.redacted(request.url)
        var secrets = headerSecrets.union(querySecrets)
        var postData: HARArchive.PostData?
        if let body, request.body != nil {
            let type = request.headers[.contentType]
            postData = HARArchive.PostData(mimeType: type ?? "application/octet-stream")
            if body.count > maximumBodySize {
                postData?.comment = Self.tooLarge(body.count, limit: maximumBodySize)
            } else {
                let (redacted, fields) = redaction.redacted(body: body, contentType: type, secrets: secrets)
                secrets.formUnion(fields.filter { $0.count >= 4 })
                if let text = String(data: redacted, encoding: .utf8) {
                    postData?.text = text
                } else {
                    postData?.text = redacted.base64EncodedString()
                    postData?._encoding = "base64"
                }
            }
        }
        let record = HARArchive.Request(
            method: request.method.rawValue,
            url: url,
            headers: headers,
            queryString: query,
            postData: postData,
            bodySize: body?.count ?? (request.body == nil ? 0 : -1)
        )
        return (record, secrets)
    }

    /// The response as HAR keeps it: `body` as received (`complete` when it was read to its end).
    func response(
        _ response: TransportResponse,
        body: Data,
        size: Int,
        chunks: [Int],
        complete: Bool,
        secrets: Set<String>
    ) -> HARArchive.Response {
        let (headers, _) = redaction.redacted(response.headers)
        let type = response.headers[.contentType]
        var content = HARArchive.Content(size: size, mimeType: type ?? "x-unknown")
        if size > maximumBodySize {
            content.comment = Self.tooLarge(size, limit: maximumBodySize)
        } else if body.isEmpty, size > 0 {
            content.comment = "a body of \(size) bytes that was not read: it was over the caller's limit"
        } else {
            let (redacted, _) = redaction.redacted(body: body, contentType: type, secrets: secrets)
            if let text = String(data: redacted, encoding: .utf8) {
                content.text = text
            } else {
                content.text = redacted.base64EncodedString()
                content.encoding = "base64"
            }
            if !complete { content.comment = "the reader left the body after \(body.count) bytes" }
            // Redaction may change the length; the chunks then no longer describe the bytes, and are left out.
            if chunks.count > 1, chunks.reduce(0, +) == redacted.count { content._chunks = chunks }
        }
        return HARArchive.Response(
            status: response.statusCode,
            statusText: HTTPURLResponse.localizedString(forStatusCode: response.statusCode).capitalized,
            headers: headers,
            content: content,
            redirectURL: response.headers[.location] ?? "",
            bodySize: size
        )
    }

    static func tooLarge(_ size: Int, limit: Int) -> String {
        "a body of \(size) bytes, over the recording's limit of \(limit): its bytes are not kept"
    }

    /// `date` as HAR writes it: ISO 8601 with milliseconds, in UTC.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

/// A request body's bytes, read once: for matching and recording, and to send again as the same kind of body.
enum RequestBodyBytes {
    /// The bytes of `request`'s body (`nil` for none), and the request to send in its place: the same request,
    /// whose body, if it was a stream, now replays the bytes read.
    static func read(_ request: TransportRequest) async throws -> (Data?, TransportRequest) {
        guard let body = request.body else { return (nil, request) }
        if let data = body.data { return (data, request) }
        if let file = body.fileURL { return (try Data(contentsOf: file), request) }
        var bytes = Data()
        for try await chunk in try body.makeChunks() { bytes.append(chunk) }
        var replacement = request
        let read = bytes
        replacement.body = .chunks(length: body.length, canBeSentAgain: true) {
            AsyncThrowingStream { continuation in
                continuation.yield(read)
                continuation.finish()
            }
        }
        return (bytes, replacement)
    }
}
