import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointKinds {
    /// Endpoints anyone may call: they need no request data.
    public enum Public: EndpointKind {
        /// Leaves the request as the endpoint built it.
        public static func prepare(_ request: inout URLRequest, with _: Void) {}

        /// Leaves the request as the endpoint built it.
        public static func prepare(_ request: inout TransportRequest, with _: Void) {}
    }
}
