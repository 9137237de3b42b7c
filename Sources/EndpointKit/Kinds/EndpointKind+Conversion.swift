import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointKind {
    /// Lets the kind prepare `request` through a `URLRequest`, then takes back what it changed: the method,
    /// the URL, the headers (the kind's writes are checked like any other) and an in-memory body.
    ///
    /// Header order and repeated names survive for every field the kind left alone; a field it set or changed
    /// is taken as the kind wrote it.
    static func prepareThroughURLRequest(_ request: inout TransportRequest, with data: RequestData) throws {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        var joined: [HTTPHeaders.Name: String] = [:]
        for field in request.headers where joined[field.name] == nil {
            let value = request.headers.values(for: field.name).joined(separator: ", ")
            joined[field.name] = value
            urlRequest.setValue(value, forHTTPHeaderField: field.name.rawValue)
        }
        let originalBody = request.body?.data
        urlRequest.httpBody = originalBody
        try prepare(&urlRequest, with: data)

        if let url = urlRequest.url, url != request.url {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
                throw PreparationError(description: "it set a URL that is not an absolute http or https URL")
            }
            request.url = url
        }
        if let method = urlRequest.httpMethod, method != request.method.rawValue {
            request.method = HTTPMethod(method)
        }
        let final = urlRequest.allHTTPHeaderFields ?? [:]
        var finalByName: [HTTPHeaders.Name: (name: String, value: String)] = [:]
        for (name, value) in final { finalByName[HTTPHeaders.Name(name)] = (name, value) }
        var headers = HTTPHeaders()
        for field in request.headers {
            guard let now = finalByName[field.name] else { continue }
            if now.value == joined[field.name] {
                headers.add(field.value, for: field.name)
            } else if !headers.contains(field.name) {
                headers.add(now.value, for: field.name)
            }
        }
        for (name, entry) in finalByName.sorted(by: { $0.key.rawValue.lowercased() < $1.key.rawValue.lowercased() })
        where joined[name] == nil {
            headers.add(entry.value, for: HTTPHeaders.Name(entry.name))
        }
        request.headers = headers
        if urlRequest.httpBody != originalBody {
            request.body = urlRequest.httpBody.map { .data($0) }
        }
    }
}

/// What the client reports when a kind's preparation leaves the request unusable.
struct PreparationError: Error, CustomStringConvertible {
    var description: String
}
