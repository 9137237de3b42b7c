import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an app shows a person: `error.localizedDescription` says what failed in a sentence, never a secret.
extension EndpointError: LocalizedError {
    /// What failed, in one sentence a person can read, with the request it concerns (redacted), e.g.
    /// "The server answered 404 Not Found to GET https://api.example.com/v1/items/42."
    public var errorDescription: String? {
        let target = request.map { " (\($0.description))" } ?? ""
        let sentence: String
        switch kind {
        case .unacceptableStatus:
            let status = statusCode.map { "\($0) \(HTTPURLResponse.localizedString(forStatusCode: $0).capitalized)" }
            sentence = "The server answered \(status ?? "with an error")"
        case .timedOut: sentence = "The request timed out"
        case .cancelled: sentence = "The request was cancelled"
        case .transportFailed: sentence = "The connection to the server failed"
        case .secureConnectionFailed: sentence = "A secure connection to the server could not be made"
        case .responseTooLarge: sentence = "The server's response was too large"
        case .decodingFailed:
            let field = codingPath.flatMap { $0.isEmpty ? nil : " at \"\($0)\"" } ?? ""
            sentence = "The server's response could not be read\(field)"
        case .responseRejected: sentence = "The server reported an error"
        case .authenticationFailed: sentence = "The server did not accept the credentials"
        case .rateLimited where statusCode == nil: sentence = "A rate limit held the request back"
        case .rateLimited: sentence = "The server asked to wait before trying again"
        case .redirectRefused: sentence = "The server redirected the request somewhere it may not go"
        case .tooManyRedirects: sentence = "The server redirected the request too many times"
        case .invalidRequest: sentence = "The request could not be made"
        case .encodingFailed: sentence = "The request's body could not be encoded"
        // The message names what is missing or where it stopped: the sentence is the message itself.
        case .modelNotFound, .paginationLoop, .outboxFull, .writeExpired, .writeOutcomeUnknown, .outboxStorageFailed,
            .storageFailed, Kind("notRecorded"):
            sentence = Self.sentence(message)
        default: sentence = "The request failed (\(kind))"
        }
        return Self.singleLine(sentence + target + ".")
    }

    /// `message` as a sentence: its first letter capitalized, no full stop of its own.
    private static func sentence(_ message: String) -> String {
        let trimmed = message.hasSuffix(".") ? String(message.dropLast()) : message
        return trimmed.prefix(1).uppercased() + trimmed.dropFirst()
    }

    /// Why: the error's message, with the coding path for a decoding failure; never a secret.
    public var failureReason: String? {
        let path = codingPath.map { " at \($0.isEmpty ? "<root>" : $0)" } ?? ""
        return Self.singleLine(message + path)
    }

    /// What a person can do about it, where there is something: wait, check the network, sign in again.
    public var recoverySuggestion: String? {
        switch kind {
        case .rateLimited:
            return retryAfter.map { "Try again in \($0.readable)." } ?? "Try again later."
        case .timedOut: return "Check the network connection and try again."
        case .transportFailed where isTransient: return "Check the network connection and try again."
        case .authenticationFailed: return "Sign in again."
        case .unacceptableStatus where statusCode.map { (500..<600).contains($0) } ?? false:
            return "Try again later."
        default: return nil
        }
    }
}
