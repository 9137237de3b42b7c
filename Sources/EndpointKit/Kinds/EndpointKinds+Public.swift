import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointKinds {
    /// Endpoints anyone may call: no request data, and responses are never answered from a local cache.
    public enum Public: EndpointKind {
        /// Marks the request to ignore locally cached data.
        public static func prepare(_ request: inout URLRequest, with _: Void) {
            request.cachePolicy = .reloadIgnoringLocalCacheData
        }
    }
}
