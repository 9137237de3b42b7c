#if Postgres && AsyncHTTPClient
import EndpointKit
import Testing

@testable import EndpointKitPostgres

/// `RateLimitReach` alone: where calls count while PostgreSQL comes and goes, with the promise that no window holds
/// both the fleet's sends and this instance's own.
@Suite struct RateLimitReachTests {
    typealias Time = RateLimitReach.Time
    /// 4 per second; a share of 2 among 2 instances.
    let limit = RateLimit(4, per: .seconds(1))
    /// The period and the margin.
    var window: Time { (limit.period + limit.margin).wholeMicroseconds }

    func reserveLocally(_ reach: inout RateLimitReach, at now: Time) -> RateLimitState.Decision? {
        let effect = reach.apply(
            .reserveLocally(key: "k", share: limit.share(among: 2), maxWait: 60_000_000, now: now)
        )
        guard case .decided(let decision) = effect else { return nil }
        return decision
    }

    @Test("Calls count in PostgreSQL until it fails; the first local slot is one window after the failure")
    func goingLocal() {
        var reach = RateLimitReach(retryInterval: 1_000_000)
        #expect(reach.apply(.route(now: 10)) == .useShared)
        #expect(reach.apply(.failed(now: 100)) == .useLocal)
        #expect(reach.apply(.route(now: 200)) == .useLocal)
        #expect(reserveLocally(&reach, at: 200) == .send(wait: 100 + window - 200))
        // A share of 2 per window, spaced: the next is one interval of the share later.
        let share = limit.share(among: 2)
        #expect(share.count == 2)
        #expect(reserveLocally(&reach, at: 200) == .send(wait: 100 + window - 200 + share.intervalMicroseconds))
    }

    @Test("Once per retry interval one call tries PostgreSQL; when it answers, each key kept is paused a window")
    func comingBack() {
        var reach = RateLimitReach(retryInterval: 1_000_000)
        _ = reach.apply(.failed(now: 0))
        _ = reserveLocally(&reach, at: 10)
        #expect(reach.apply(.route(now: 999_999)) == .useLocal)
        #expect(reach.apply(.route(now: 1_000_000)) == .useShared)
        // Another call in the same interval stays local while the first one tries.
        #expect(reach.apply(.route(now: 1_000_001)) == .useLocal)
        // That try failed: the spell goes on, and the next try is an interval later.
        #expect(reach.apply(.failed(now: 1_200_000)) == .useLocal)
        #expect(reach.apply(.route(now: 1_999_999)) == .useLocal)
        #expect(reach.apply(.route(now: 2_000_000)) == .useShared)
        #expect(reach.apply(.answered) == .pauseShared(["k": window]))
        #expect(reach.apply(.route(now: 2_000_001)) == .useShared)
        #expect(reach.apply(.answered) == RateLimitReach.Effect.none)
        #expect(reach.states.isEmpty)
    }

    @Test("A new spell starts its counts afresh, a window after its own failure")
    func secondSpell() {
        var reach = RateLimitReach(retryInterval: 1_000_000)
        _ = reach.apply(.failed(now: 0))
        _ = reserveLocally(&reach, at: 10)
        _ = reach.apply(.route(now: 1_000_000))
        _ = reach.apply(.answered)
        _ = reach.apply(.failed(now: 5_000_000))
        #expect(reserveLocally(&reach, at: 5_000_000) == .send(wait: window))
    }

    @Test("A pause the upstream asks for holds local slots back too")
    func localPause() {
        var reach = RateLimitReach(retryInterval: 1_000_000)
        _ = reach.apply(.failed(now: 0))
        _ = reserveLocally(&reach, at: 0)
        _ = reach.apply(.pause(key: "k", duration: 30_000_000, now: 1_000))
        #expect(reserveLocally(&reach, at: 2_000) == .send(wait: 30_000_000 - 1_000))
    }

    @Test("A share is the count and burst divided among the instances, never below one")
    func shares() {
        let share = RateLimit(10, per: .seconds(1), burst: 6).share(among: 4)
        #expect(share.count == 2)
        #expect(share.burst == 1)
        #expect(RateLimit(3, per: .seconds(1)).share(among: 8).count == 1)
    }
}
#endif
