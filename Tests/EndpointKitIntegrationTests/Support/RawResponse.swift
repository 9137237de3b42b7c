import EndpointKit
import Foundation

/// Endpoints that make the fault server send exact bytes: what a hostile or broken server would.
enum RawResponse {
    /// The query that carries `bytes` to the fault server's `/raw/KEY`, in URL-safe base64.
    static func query(_ bytes: String, close: Bool = false, hold: Bool = false) -> [URLQueryItem] {
        let encoded = Data(bytes.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        var items = [URLQueryItem(name: "b64", value: encoded)]
        if close { items.append(URLQueryItem(name: "close", value: "1")) }
        if hold { items.append(URLQueryItem(name: "hold", value: "1")) }
        return items
    }

    /// An endpoint whose answer is exactly `bytes`, response head included.
    static func endpoint(_ key: String, _ bytes: String, close: Bool = false, hold: Bool = false)
        -> Endpoint<EndpointKinds.Public, Data>
    {
        Endpoint(path: "raw/\(key)", queryItems: query(bytes, close: close, hold: hold))
    }
}
