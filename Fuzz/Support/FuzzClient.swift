import Foundation

/// One client for the targets that only build requests: a client per case would make a `URLSession` per case,
/// which is slow and leaves Foundation's allocations for LeakSanitizer to report.
enum FuzzClient {
    /// A transport that no target sends through.
    struct Unused: Transport {
        func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
            throw EndpointError(.transportFailed, "the fuzz targets do not send requests")
        }
    }

    static let shared = EndpointClient(environment: PathFuzz.environment, transport: Unused())
}
