import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Header validation: a header is accepted exactly when its name is an RFC 9110 token, its value holds no line
/// break, NUL, other control character or non-ASCII text, and the transport does not manage it; an accepted one
/// reaches the `URLRequest` unchanged (Linux's `setValue` would drop it silently otherwise), a refused one fails
/// the request with `invalidRequest` or `setCheckedValue` with an error that does not quote the value.
enum HeaderFuzz {
    static let tokenBytes = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    static func run(_ input: inout FuzzInput) {
        let name = input.text()
        let value = input.text()
        let headerName = HTTPHeaders.Name(name)
        let isToken = !name.isEmpty && name.utf8.allSatisfy(tokenBytes.contains)
        let isCleanValue = value.unicodeScalars.allSatisfy { $0 == "\t" || (0x20...0x7E).contains($0.value) }
        let managed = [
            "host", "content-length", "transfer-encoding", "connection", "te", "upgrade", "expect",
        ].contains(name.lowercased())
        let acceptable = isToken && isCleanValue && !managed

        var endpoint = Endpoint<EndpointKinds.Public, Data>(path: "items")
        endpoint.headers.add(value, for: headerName)
        do {
            let request = try endpoint.makeRequest(in: PathFuzz.environment, with: ())
            require(acceptable, "header \(name.debugDescription): \(value.debugDescription) was accepted")
            require(
                request.value(forHTTPHeaderField: name) == value,
                "header \(name.debugDescription) reached the request as "
                    + "\(request.value(forHTTPHeaderField: name).debugDescription), not \(value.debugDescription)"
            )
        } catch {
            require(!acceptable, "header \(name.debugDescription): \(value.debugDescription) was refused: \(error)")
            require(error.kind == .invalidRequest, "a bad header failed with \(error.kind)")
        }

        var request = URLRequest(url: PathFuzz.baseURL)
        do {
            try request.setCheckedValue(value, for: headerName)
            require(acceptable, "setCheckedValue accepted \(name.debugDescription): \(value.debugDescription)")
            require(request.value(forHTTPHeaderField: name) == value, "setCheckedValue lost \(name.debugDescription)")
        } catch {
            require(!acceptable, "setCheckedValue refused \(name.debugDescription): \(value.debugDescription)")
            let reason = "\(error)"
            require(
                value.count < 4 || name.containsScalars(value) || !reason.containsScalars(value),
                "the error quotes the value: \(reason)"
            )
        }
    }
}
