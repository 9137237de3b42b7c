import EndpointKit
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Wraps a transport and prints each exchange, with secrets redacted.
struct PrintingTransport: Transport {
    let base: any Transport

    func send(_ request: TransportRequest) async throws -> HTTPResponse {
        let summary = RequestSummary(request.urlRequest)
        let headers = HTTPHeaders(
            (request.urlRequest.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key })
                .map { HTTPHeaders.Field(name: HTTPHeaders.Name($0.key), value: $0.value) }
        )
        print("  → \(summary)")
        print("    headers: \(headers)")
        do {
            let response = try await base.send(request)
            print("  ← \(response.statusCode), \(response.body.count) bytes")
            return response
        } catch {
            print("  ← failed: \(error)")
            throw error
        }
    }
}
