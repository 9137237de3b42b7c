#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitTesting
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

    /// The longest a call waits for its slot, here 2 s.
    let maxWait: Time = 2_000_000

    func reserveLocally(_ reach: inout RateLimitReach, at now: Time) -> RateLimitState.Decision? {
        let effect = reach.apply(
            .reserveLocally(key: "k", share: limit.share(among: 2), maxWait: maxWait, now: now)
        )
        guard case .decided(let decision) = effect else { return nil }
        return decision
    }

    @Test(
        "Calls count in PostgreSQL until it fails; the first local slot is maxWait and a window after the failure, none more than a window ahead"
    )
    func goingLocal() {
        var reach = RateLimitReach(retryInterval: 1_000_000)
        #expect(reach.apply(.route(now: 10)) == .useShared)
        #expect(reach.apply(.failed(now: 100)) == .beganLocal)
        #expect(reach.apply(.route(now: 200)) == .useLocal)
        // A failure within the spell begins none.
        #expect(reach.apply(.failed(now: 150)) == .useLocal)
        // Slots PostgreSQL granted may lie up to maxWait after the failure: the first local one is a window later.
        #expect(reserveLocally(&reach, at: 200) == .refuse(wait: 100 + maxWait + window - 200))
        let now = 100 + maxWait + 10
        #expect(reserveLocally(&reach, at: now) == .send(wait: window - 10))
        // A share of 2 per window, spaced: the next lies an interval later, past the one window a local slot may be
        // ahead.
        let share = limit.share(among: 2)
        #expect(share.count == 2)
        #expect(reserveLocally(&reach, at: now) == .refuse(wait: window - 10 + share.intervalMicroseconds))
    }

    @Test(
        "Once per retry interval one call tries PostgreSQL; when it answers, each key is paused a window past its last local slot"
    )
    func comingBack() {
        var reach = RateLimitReach(retryInterval: 1_000_000)
        _ = reach.apply(.failed(now: 0))
        #expect(reach.apply(.route(now: 999_999)) == .useLocal)
        #expect(reach.apply(.route(now: 1_000_000)) == .useShared)
        // Another call in the same interval stays local while the first one tries.
        #expect(reach.apply(.route(now: 1_000_001)) == .useLocal)
        // That try failed: the spell goes on, and the next try is an interval later.
        #expect(reach.apply(.failed(now: 1_200_000)) == .useLocal)
        #expect(reach.apply(.route(now: 1_999_999)) == .useLocal)
        #expect(reach.apply(.route(now: 2_000_000)) == .useShared)
        #expect(reach.apply(.failed(now: 2_100_000)) == .useLocal)
        #expect(reserveLocally(&reach, at: 3_000_000) == .send(wait: maxWait + window - 3_000_000))
        let lastSlot = maxWait + window
        #expect(reach.apply(.route(now: 3_000_000)) == .useShared)
        #expect(reach.apply(.answered(now: 3_000_000)) == .pauseShared(["k": lastSlot + window - 3_000_000]))
        #expect(reach.apply(.route(now: 3_000_001)) == .useShared)
        #expect(reach.apply(.answered(now: 3_000_001)) == RateLimitReach.Effect.none)
        #expect(reach.states.isEmpty)
    }

    @Test("A spell that sent nothing, or whose last local slot is a window past, pauses nothing when it ends")
    func comingBackQuietly() {
        var reach = RateLimitReach(retryInterval: 1_000_000)
        _ = reach.apply(.failed(now: 0))
        #expect(reserveLocally(&reach, at: 10) == .refuse(wait: maxWait + window - 10))
        _ = reach.apply(.route(now: 1_000_000))
        #expect(reach.apply(.answered(now: 1_000_000)) == RateLimitReach.Effect.none)
    }

    @Test("A new spell starts its counts afresh, maxWait and a window after its own failure")
    func secondSpell() {
        var reach = RateLimitReach(retryInterval: 1_000_000)
        _ = reach.apply(.failed(now: 0))
        _ = reserveLocally(&reach, at: maxWait + 10)
        _ = reach.apply(.route(now: 10_000_000))
        _ = reach.apply(.answered(now: 10_000_000))
        _ = reach.apply(.failed(now: 20_000_000))
        #expect(reserveLocally(&reach, at: 20_000_000 + maxWait) == .send(wait: window))
    }

    @Test(
        "Seeded walk: no local slot within maxWait and a window of the failure, none over a window ahead, every one covered by the pause at the end"
    )
    func seededWalk() {
        for seed: UInt64 in [3, 11, 2_026, 20_261_203] {
            print("RateLimitReach walk, seed \(seed)")
            var generator = SeededGenerator(seed: seed)
            var reach = RateLimitReach(retryInterval: 1_000_000)
            var now: Time = 0
            var failedAt: Time?
            var lastLocalSlot: Time?
            for _ in 0..<20_000 {
                now += Time.random(in: 0...200_000, using: &generator)
                switch Int.random(in: 0..<10, using: &generator) {
                case 0:
                    if failedAt == nil { failedAt = now }
                    _ = reach.apply(.failed(now: now))
                case 1:
                    let effect = reach.apply(.answered(now: now))
                    if let last = lastLocalSlot, last + window > now {
                        #expect(effect == .pauseShared(["k": last + window - now]), "seed \(seed)")
                    } else {
                        #expect(effect == RateLimitReach.Effect.none, "seed \(seed)")
                    }
                    (failedAt, lastLocalSlot) = (nil, nil)
                default:
                    guard let since = failedAt, case .send(let wait)? = reserveLocally(&reach, at: now) else {
                        continue
                    }
                    #expect(now + wait >= since + maxWait + window, "seed \(seed): a local slot among the fleet's")
                    #expect(wait <= window, "seed \(seed): a local slot more than a window ahead")
                    lastLocalSlot = max(lastLocalSlot ?? 0, now + wait)
                }
            }
        }
    }

    @Test("A pause the upstream asks for holds local slots back too")
    func localPause() {
        var reach = RateLimitReach(retryInterval: 1_000_000)
        _ = reach.apply(.failed(now: 0))
        _ = reserveLocally(&reach, at: 0)
        _ = reach.apply(.pause(key: "k", duration: 30_000_000, now: 1_000))
        #expect(reserveLocally(&reach, at: 30_000_000) == .send(wait: 1_000))
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
