import Foundation
import Testing

@testable import EndpointKit

/// What a directory outbox answers for `status(of:)`: its queue's view of a write it holds, and the last outcomes.
@Suite struct OutboxStatusTests {
    private static func write(_ sequence: UInt64, group: String = "g") -> OutboxState.Write {
        OutboxState.Write(sequence: sequence, record: .sample(group: group, sequence: sequence), size: 10)
    }

    @Test("The first write of a group being tried, or paused between tries, is sending; the others are queued")
    func queuedAndSending() {
        var state = OutboxState(policy: OutboxPolicy())
        let now = Date(timeIntervalSince1970: 0)
        _ = state.apply(.queued(Self.write(1)), now: now)
        _ = state.apply(.queued(Self.write(2)), now: now)
        #expect(state.status(of: "w1") == .queued)

        let effects = state.apply(.started, now: now)
        let attempt = effects.compactMap { if case .send(_, let attempt) = $0 { attempt } else { nil } }.first
        #expect(state.status(of: "w1") == .sending)
        #expect(state.status(of: "w2") == .queued)

        let lost = EndpointError(.transportFailed, "the answer was lost")
        _ = state.apply(
            .tryEnded(group: "g", attempt: attempt ?? 0, outcome: .retry(lost, retryAfter: nil), jitter: 0),
            now: now
        )
        #expect(state.status(of: "w1") == .sending, "paused between tries")
        #expect(state.status(of: "w2") == .queued)
        #expect(state.status(of: "w3") == nil)
    }

    @Test("The last 10,000 outcomes are remembered, the oldest forgotten first; only ends are outcomes")
    func outcomesAreBounded() {
        var outcomes = OutboxOutcomes()
        outcomes.record(.queued(Self.write(0)))
        for index in 0...OutboxOutcomes.limit {
            outcomes.record(.sent(Self.write(UInt64(index) + 1), statusCode: 201))
        }
        let refusal = EndpointError(.unacceptableStatus, "no", statusCode: 422)
        outcomes.record(.refused(Self.write(100_000), refusal))

        #expect(outcomes["w0"] == nil, "queued: not an outcome")
        #expect(outcomes["w1"] == nil)
        #expect(outcomes["w2"] == nil)
        #expect(outcomes["w3"] == .sent(statusCode: 201))
        #expect(outcomes["w\(OutboxOutcomes.limit + 1)"] == .sent(statusCode: 201))
        #expect(outcomes["w100000"] == .refused(statusCode: 422))
    }
}

extension OutboxRecord {
    /// A `POST items` write of `group` whose ID is `w` and its sequence number, queued at the epoch.
    static func sample(group: String, sequence: UInt64) -> OutboxRecord {
        OutboxRecord(
            id: "w\(sequence)",
            key: "k",
            group: group,
            queuedAt: Date(timeIntervalSince1970: 0),
            method: "POST",
            path: "items",
            query: [],
            headers: []
        )
    }
}
