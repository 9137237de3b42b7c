import Foundation
import Testing

@testable import EndpointKit

/// What a directory outbox answers for `status(of:)`: its queue's view of a write it holds, and the last outcomes.
@Suite struct OutboxStatusTests {
    private static func write(_ id: String, group: String = "g", sequence: UInt64) -> OutboxState.Write {
        let record = OutboxRecord(
            id: id,
            key: "key-\(id)",
            group: group,
            queuedAt: Date(timeIntervalSince1970: 0),
            method: "POST",
            path: "items",
            query: [],
            headers: []
        )
        return OutboxState.Write(sequence: sequence, record: record, size: 10)
    }

    @Test("The first write of a group being tried, or paused between tries, is sending; the others are queued")
    func queuedAndSending() {
        var state = OutboxState(policy: OutboxPolicy())
        let now = Date(timeIntervalSince1970: 0)
        _ = state.apply(.queued(Self.write("a", sequence: 1)), now: now)
        _ = state.apply(.queued(Self.write("b", sequence: 2)), now: now)
        #expect(state.status(of: "a") == .queued)

        let effects = state.apply(.started, now: now)
        let attempt = effects.compactMap { if case .send(_, let attempt) = $0 { attempt } else { nil } }.first
        #expect(state.status(of: "a") == .sending)
        #expect(state.status(of: "b") == .queued)

        let lost = EndpointError(.transportFailed, "the answer was lost")
        _ = state.apply(
            .tryEnded(group: "g", attempt: attempt ?? 0, outcome: .retry(lost, retryAfter: nil), jitter: 0),
            now: now
        )
        #expect(state.status(of: "a") == .sending, "paused between tries")
        #expect(state.status(of: "b") == .queued)
        #expect(state.status(of: "c") == nil)
    }

    @Test("The last 10,000 outcomes are remembered, the oldest forgotten first; only ends are outcomes")
    func outcomesAreBounded() {
        var outcomes = OutboxOutcomes()
        outcomes.record(.queued(Self.write("queued", sequence: 0)))
        for index in 0...OutboxOutcomes.limit {
            outcomes.record(.sent(Self.write("w\(index)", sequence: UInt64(index)), statusCode: 201))
        }
        let refusal = EndpointError(.unacceptableStatus, "no", statusCode: 422)
        outcomes.record(.refused(Self.write("refused", sequence: 1), refusal))

        #expect(outcomes["queued"] == nil)
        #expect(outcomes["w0"] == nil)
        #expect(outcomes["w1"] == nil)
        #expect(outcomes["w2"] == .sent(statusCode: 201))
        #expect(outcomes["w\(OutboxOutcomes.limit)"] == .sent(statusCode: 201))
        #expect(outcomes["refused"] == .refused(statusCode: 422))
    }
}
