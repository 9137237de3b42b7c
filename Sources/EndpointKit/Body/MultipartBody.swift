import Foundation

/// A `multipart/form-data` body of text fields and files.
///
///     let body = MultipartBody([
///         .field("title", "Holiday"),
///         .file("photo", fileURL: photoURL, contentType: "image/jpeg"),
///         .file("notes", filename: "notes.txt", contentType: "text/plain", data: Data(notes.utf8)),
///     ])
///     let upload = Endpoint<EndpointKinds.Private, EmptyResponse>(method: .post, path: "albums/\(albumID)/photos", body: body)
///
/// The boundary is random and made when the request is built; a boundary found inside any part's bytes is
/// replaced before anything is sent. A body with file parts is assembled in a temporary file, reading each
/// file in 1 MiB chunks, and streamed from disk with a `Content-Length` (Linux URLSession sends streams
/// chunked, which servers often refuse); memory use does not grow with file size. The temporary file is
/// deleted when the call is over.
public struct MultipartBody: RequestBody {
    /// One part of the form.
    public struct Part: Sendable {
        enum Content: Sendable {
            case data(Data)
            case file(URL)
        }

        /// The form field's name.
        public var name: String
        /// The file name sent with a file part, or `nil` for a text field.
        public var filename: String?
        /// The part's `Content-Type`, or `nil` for none (text fields).
        public var contentType: String?
        let content: Content

        /// A text field.
        public static func field(_ name: String, _ value: String) -> Part {
            Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8)))
        }

        /// A file part from bytes in memory.
        public static func file(
            _ name: String,
            filename: String,
            contentType: String = "application/octet-stream",
            data: Data
        ) -> Part {
            Part(name: name, filename: filename, contentType: contentType, content: .data(data))
        }

        /// A file part read from disk when the request is built; `filename` defaults to the file's name.
        public static func file(
            _ name: String,
            fileURL: URL,
            filename: String? = nil,
            contentType: String = "application/octet-stream"
        ) -> Part {
            Part(
                name: name,
                filename: filename ?? fileURL.lastPathComponent,
                contentType: contentType,
                content: .file(fileURL)
            )
        }
    }

    /// The parts, in order.
    public var parts: [Part]

    /// Creates a form from its parts.
    public init(_ parts: [Part]) { self.parts = parts }

    static let chunkSize = 1 << 20

    /// Encodes the form in memory, or in a temporary file when a part is a file on disk.
    public func makeContent(context: RequestBodyContext) throws -> RequestBodyContent {
        for part in parts {
            if let contentType = part.contentType,
                let problem = HTTPHeaders.problem(name: "Content-Type", value: contentType)
            {
                throw MultipartError("part \(part.name.debugDescription): \(problem)")
            }
        }
        // A collision needs the boundary's 122 random bits to appear in the content; try again if it ever does.
        for _ in 0..<3 {
            let boundary = "EndpointKit-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
            let contentType = "multipart/form-data; boundary=\(boundary)"
            if parts.contains(where: { if case .file = $0.content { true } else { false } }) {
                if let file = try writeFile(boundary: boundary) {
                    return RequestBodyContent(contentType: contentType, source: .temporaryFile(file))
                }
            } else if let data = encodeInMemory(boundary: boundary) {
                return RequestBodyContent(contentType: contentType, data: data)
            }
        }
        throw MultipartError("no boundary could be found that does not occur in the content")
    }

    private func encodeInMemory(boundary: String) -> Data? {
        let delimiter = Data("--\(boundary)".utf8)
        var body = Data()
        for part in parts {
            guard case .data(let data) = part.content else { return nil }
            if data.range(of: delimiter) != nil { return nil }
            body.append(header(for: part, boundary: boundary))
            body.append(data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
    }

    /// Writes the form to a new temporary file; `nil` when the boundary occurs in the content.
    private func writeFile(boundary: String) throws -> URL? {
        let delimiter = Data("--\(boundary)".utf8)
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("endpointkit-multipart-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw MultipartError("the temporary file \(url.path) could not be created")
        }
        var keep = false
        defer { if !keep { try? FileManager.default.removeItem(at: url) } }
        let output = try FileHandle(forWritingTo: url)
        defer { try? output.close() }
        for part in parts {
            try output.write(contentsOf: header(for: part, boundary: boundary))
            switch part.content {
            case .data(let data):
                if data.range(of: delimiter) != nil { return nil }
                try output.write(contentsOf: data)
            case .file(let file):
                guard try copy(file, to: output, checkingFor: delimiter) else { return nil }
            }
            try output.write(contentsOf: Data("\r\n".utf8))
        }
        try output.write(contentsOf: Data("--\(boundary)--\r\n".utf8))
        keep = true
        return url
    }

    /// Copies `file` in chunks; `false` when `delimiter` occurs in it, even across two chunks.
    private func copy(_ file: URL, to output: FileHandle, checkingFor delimiter: Data) throws -> Bool {
        let input: FileHandle
        do {
            input = try FileHandle(forReadingFrom: file)
        } catch {
            throw MultipartError("the file \(file.path) cannot be read: \(error.localizedDescription)")
        }
        defer { try? input.close() }
        var tail = Data()
        while let chunk = try input.read(upToCount: Self.chunkSize), !chunk.isEmpty {
            let window = tail + chunk
            if window.range(of: delimiter) != nil { return false }
            tail = window.suffix(delimiter.count - 1)
            try output.write(contentsOf: chunk)
        }
        return true
    }

    private func header(for part: Part, boundary: String) -> Data {
        var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
        if let filename = part.filename { header += "; filename=\"\(Self.escaped(filename))\"" }
        header += "\r\n"
        if let contentType = part.contentType { header += "Content-Type: \(contentType)\r\n" }
        header += "\r\n"
        return Data(header.utf8)
    }

    /// Escapes a name or file name as HTML forms do: `"`, CR and LF are percent-encoded.
    ///
    /// Scalar by scalar, not character by character: a line feed followed by a combining mark is one
    /// `Character` that is not equal to `"\n"`, and would reach the header unescaped.
    static func escaped(_ text: String) -> String {
        text.replacingScalars(of: "\"", with: "%22").replacingScalars(of: "\r", with: "%0D")
            .replacingScalars(of: "\n", with: "%0A")
    }
}

/// Why a ``MultipartBody`` could not be encoded.
struct MultipartError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
