import Foundation

extension HTTPHeaders {
    /// The length of the body a response head announces: the one rule ``URLSessionTransport``, the
    /// AsyncHTTPClient adapter and downloads all use.
    ///
    /// 0 for a response that has no body whatever its headers say (to `HEAD`, and 1xx, 204 and 304); the
    /// `Content-Length` when no content encoding inflates the body on the way (the reader gets more bytes than a
    /// compressed body's length says); `nil` when the head does not say, or says something that is not a length
    /// (a sign, a space inside, a number past `Int64`).
    ///
    /// - Parameters:
    ///   - statusCode: The response's status.
    ///   - isHead: Whether the request was a `HEAD`.
    /// - Returns: The body's length in bytes, or `nil` when it is not known in advance.
    public func announcedBodyLength(statusCode: Int, isHead: Bool) -> Int64? {
        if isHead || statusCode == 204 || statusCode == 304 || (100..<200).contains(statusCode) { return 0 }
        for field in self where field.name == "Content-Encoding" {
            for coding in field.value.split(separator: ",")
            where coding.trimmingCharacters(in: .whitespaces)
                .lowercased() != "identity"
            {
                return nil
            }
        }
        guard let text = self[.contentLength]?.trimmingCharacters(in: .whitespaces), text.isASCIIDigits else {
            return nil
        }
        return Int64(text)
    }
}
