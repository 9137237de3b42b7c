import Foundation
import Testing

@testable import EndpointKit

@Suite
struct BodyCollectorTests {
    @Test("A body announced past the limit fails before a byte is read, naming the announced size")
    func announcedPastTheLimit() {
        let error = #expect(throws: EndpointError.self) { _ = try BodyCollector(limit: 10, announced: 11) }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.message.contains("announced 11 bytes") == true)
    }

    @Test("A body of exactly the limit is kept whole; the chunk that crosses it fails")
    func crossingChunkFails() throws {
        var collector = try BodyCollector(limit: 10, announced: nil)
        try collector.append(Data(count: 6))
        try collector.append(Data(count: 4))
        #expect(collector.data.count == 10)
        let error = #expect(throws: EndpointError.self) { try collector.append(Data(count: 1)) }
        #expect(error?.kind == .responseTooLarge)
        #expect(collector.take().count == 10)
        #expect(collector.data.isEmpty)
    }
}
