#if AsyncHTTPClient
import EndpointKit
import Foundation

/// Endpoints that make the fault server send exact bytes: what a hostile or broken server would.
enum RawResponse {
    /// An endpoint whose answer is exactly `bytes`, response head included (the fault server's `/raw/KEY`).
    static func endpoint(_ key: String, _ bytes: String, hold: Bool = false) -> Endpoint<EndpointKinds.Public, Data> {
        let encoded = Data(bytes.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        var query = [URLQueryItem(name: "b64", value: encoded)]
        if hold { query.append(URLQueryItem(name: "hold", value: "1")) }
        return Endpoint(path: "raw/\(key)", queryItems: query)
    }
}
#endif
