import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Path interpolation: an interpolated value is exactly one segment that decodes back to the value, never a
/// dot-segment, and never moves the request to another host, query or fragment; a value that cannot be one
/// segment (empty, or holding `.` or `..`) fails the request with `invalidRequest`.
enum PathFuzz {
    static let baseURL = required(URL(string: "https://api.example.com/v1/"), "the base URL")
    static let environment = ServerEnvironment(baseURL: baseURL)

    static func run(_ input: inout FuzzInput) {
        let value = input.text()
        let path: EndpointPath = "items/\(value)/end"
        let endpoint = Endpoint<EndpointKinds.Public, Data>(path: path)
        let request: URLRequest
        do {
            request = try endpoint.makeRequest(in: environment, with: ())
        } catch {
            require(error.kind == .invalidRequest, "path \(value.debugDescription) failed with \(error.kind)")
            let pieces = value.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
            require(
                value.isEmpty || pieces.contains { $0 == "." || $0 == ".." },
                "path value \(value.debugDescription) was refused: \(error.message)"
            )
            return
        }
        let segments = path.percentEncoded.split(separator: "/", omittingEmptySubsequences: false)
        require(segments.count == 3, "\(value.debugDescription) made \(segments.count - 2) segments: \(path)")
        let encoded = segments[1]
        require(
            encoded.utf8.allSatisfy { isUnreserved($0) || "!$&'()*,=:@%".utf8.contains($0) },
            "\(value.debugDescription) left a reserved character literal: \(encoded)"
        )
        require(percentDecoded(encoded) == value, "\(encoded) does not decode to \(value.debugDescription)")
        let decodedPieces = value.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
        require(!decodedPieces.contains { $0 == "." || $0 == ".." }, "dot-segment accepted: \(value.debugDescription)")
        require(encoded != "." && encoded != "..", "a literal dot-segment was sent: \(encoded)")

        let url = required(request.url, "a request without a URL")
        require(url.host == "api.example.com" && url.scheme == "https", "the host moved: \(url)")
        require(url.query == nil && url.fragment == nil, "a query or fragment appeared: \(url)")
        require(url.absoluteString.hasSuffix("/v1/items/\(encoded)/end"), "the route changed: \(url.absoluteString)")
    }
}
