#if Postgres && AsyncHTTPClient
import EndpointKit
import EndpointKitTesting
import Testing

@testable import EndpointKitPostgres

/// `RateLimitLeases` alone, and `RateLimitState.lease`: blocks of slots taken in one trip and handed out locally.
@Suite struct RateLimitLeasesTests {
    typealias Time = RateLimitLeases.Time
    /// 10 per second: a slot every 105 ms.
    let limit = RateLimit(10, per: .seconds(1))
    var interval: Time { limit.intervalMicroseconds }
    let maxWait: Time = 5_000_000
    let lateness: Time = 25_000

    /// The clocks known to agree: a block's slots are handed out as the database gave them, nothing sooner.
    static let agreed = ClockRange(lowest: 0, highest: 0)

    func reserve(
        _ leases: inout RateLimitLeases,
        at now: Time,
        maxWait: Time? = nil,
        most: Int = 100,
        clock: ClockRange = agreed
    ) -> [RateLimitLeases.Effect] {
        leases.apply(
            .reserve(key: "k", now: now, maxWait: maxWait ?? self.maxWait, lateness: lateness, most: most, clock: clock)
        )
    }

    /// A block of `count` slots spaced by the limit's interval from `start`.
    func block(from start: Time, count: Int) -> RateLimitBlock {
        RateLimitBlock(base: start, floor: start, interval: interval, count: count)
    }

    @Test("The first call starts a trip and waits; calls meanwhile wait for the same trip; the next asks for them all")
    func firstTrip() {
        var leases = RateLimitLeases(maximumSlots: 16)
        #expect(reserve(&leases, at: 0) == [.lease(key: "k", trip: 1, count: 1), .await(trip: 1)])
        #expect(reserve(&leases, at: 10) == [.await(trip: 1)])
        #expect(reserve(&leases, at: 20) == [.await(trip: 1)])
        _ = leases.apply(.leased(key: "k", trip: 1, block: block(from: 1_000, count: 1)))
        // Three calls waited for a trip of one slot: the lease grows to cover them.
        #expect(leases.leases["k"]?.size == 3)
        // The slot is taken, and with none left of a lease of three the next trip starts at once.
        let wide = ClockRange(lowest: 0, highest: 300)
        #expect(
            reserve(&leases, at: 1_000, clock: wide) == [
                .send(wait: 0, early: 300), .lease(key: "k", trip: 2, count: 3),
            ]
        )
        #expect(reserve(&leases, at: 1_010) == [.await(trip: 2)])
    }

    @Test("Calls take a block's slots in order; the next trip starts once less than a lease is left, once per trip")
    func prefetch() {
        var leases = RateLimitLeases(maximumSlots: 16)
        _ = reserve(&leases, at: 0)
        for _ in 0..<3 { _ = reserve(&leases, at: 0) }
        _ = leases.apply(.leased(key: "k", trip: 1, block: block(from: 100, count: 4)))
        #expect(leases.leases["k"]?.size == 4)
        // Three left of a lease of four: the next trip starts, and the call still takes its slot at once.
        #expect(reserve(&leases, at: 100) == [.send(wait: 0, early: 0), .lease(key: "k", trip: 2, count: 4)])
        #expect(reserve(&leases, at: 100) == [.send(wait: interval, early: 0)])
        _ = leases.apply(.leased(key: "k", trip: 2, block: block(from: 100 + 4 * interval, count: 4)))
        // Nobody waited and nothing was wasted: the size stays. Six in hand: no trip until fewer than four.
        #expect(leases.leases["k"]?.size == 4)
        #expect(reserve(&leases, at: 100) == [.send(wait: 2 * interval, early: 0)])
        #expect(reserve(&leases, at: 100) == [.send(wait: 3 * interval, early: 0)])
        #expect(
            reserve(&leases, at: 100) == [.send(wait: 4 * interval, early: 0), .lease(key: "k", trip: 3, count: 4)]
        )
        #expect(leases.leases["k"]?.inHand == 3)
    }

    @Test("A slot passed by more than the lateness is dropped and counts as wasted, which halves the next lease")
    func wasted() {
        var leases = RateLimitLeases(maximumSlots: 16)
        _ = reserve(&leases, at: 0)
        for _ in 0..<7 { _ = reserve(&leases, at: 0) }
        _ = leases.apply(.leased(key: "k", trip: 1, block: block(from: 0, count: 8)))
        #expect(leases.leases["k"]?.size == 8)
        // At 2 intervals + 20 ms: slot 0 and 1 are past by more than 25 ms less their 1 ms lateness; slot 2 is
        // 20 ms late and kept, its lateness said.
        let now = 2 * interval + 20_000
        let effects = reserve(&leases, at: now, clock: ClockRange(lowest: 0, highest: 1_000))
        #expect(effects.first == .send(wait: 0, early: 21_000))
        #expect(leases.leases["k"]?.wasted == 2)
        // Five left of a lease of eight: the next trip starts.
        guard case .lease(_, let trip, let count)? = effects.last else {
            Issue.record("no trip started: \(effects)")
            return
        }
        #expect(count == 8)
        _ = leases.apply(.leased(key: "k", trip: trip, block: block(from: 8 * interval, count: 8)))
        #expect(leases.leases["k"]?.size == 4)
    }

    @Test("A trip asks for no more than the limit's count: a limit of one a window is leased a slot at a time")
    func slowLimit() {
        var leases = RateLimitLeases(maximumSlots: 16)
        #expect(reserve(&leases, at: 0, most: 1).first == .lease(key: "k", trip: 1, count: 1))
        for _ in 0..<5 { _ = reserve(&leases, at: 0, most: 1) }
        _ = leases.apply(.leased(key: "k", trip: 1, block: block(from: 0, count: 1)))
        // Six calls waited, but one slot a window is all a lease may hold: no trip starts beside the grant.
        #expect(reserve(&leases, at: 0, most: 1) == [.send(wait: 0, early: 0)])
        #expect(reserve(&leases, at: 0, most: 1) == [.lease(key: "k", trip: 2, count: 1), .await(trip: 2)])
    }

    @Test("A lease that arrives with nobody waiting leaves the size as it was, even with nothing else in hand")
    func noGrowthWithoutWaiting() {
        var leases = RateLimitLeases(maximumSlots: 16)
        _ = reserve(&leases, at: 0)
        _ = reserve(&leases, at: 0)
        _ = leases.apply(.leased(key: "k", trip: 1, block: block(from: 0, count: 2)))
        #expect(leases.leases["k"]?.size == 2)
        let effects = reserve(&leases, at: 0)
        guard case .lease(_, let trip, 2)? = effects.last else {
            Issue.record("no trip of two started: \(effects)")
            return
        }
        // Both slots are taken before the next lease arrives, and no call waited for it.
        #expect(reserve(&leases, at: 0) == [.send(wait: interval, early: 0)])
        _ = leases.apply(.leased(key: "k", trip: trip, block: block(from: 2 * interval, count: 2)))
        #expect(leases.leases["k"]?.size == 2)
    }

    @Test("A slot still ahead is handed out while the clock range is wide, its width said, and no trip is made for it")
    func slowAnswer() {
        var leases = RateLimitLeases(maximumSlots: 16)
        _ = reserve(&leases, at: 0)
        _ = leases.apply(.leased(key: "k", trip: 1, block: block(from: 500_000, count: 3)))
        // The limiter gives such a slot up and asks again, a few times at most; leasing anew for it would use up the
        // fleet's slots one slow trip after another.
        let slow = ClockRange(lowest: 0, highest: lateness + 1)
        #expect(reserve(&leases, at: 0, clock: slow) == [.send(wait: 500_000, early: lateness + 1)])
        #expect(leases.leases["k"]?.wasted == 0)
    }

    @Test("A block's slots are placed when handed out: a range narrowed since the lease places the rest precisely")
    func placedWhenHandedOut() {
        var leases = RateLimitLeases(maximumSlots: 16)
        _ = reserve(&leases, at: 0)
        _ = leases.apply(.leased(key: "k", trip: 1, block: block(from: 500_000, count: 3)))
        // Only a slow answer so far: the database's clock is 0 to 60 ms ahead.
        #expect(
            reserve(&leases, at: 0, clock: ClockRange(lowest: 0, highest: 60_000)).first
                == .send(wait: 500_000, early: 60_000)
        )
        // A quick answer since: 40 to 40.5 ms ahead. The next slot is 40 ms sooner here, and at most 0.5 ms early.
        let narrow = ClockRange(lowest: 40_000, highest: 40_500)
        #expect(reserve(&leases, at: 0, clock: narrow).first == .send(wait: 500_000 + interval - 40_000, early: 500))
    }

    @Test("A call whose first slot in hand is beyond its maxWait is refused, and the slot stays for the next call")
    func refusal() {
        var leases = RateLimitLeases(maximumSlots: 16)
        _ = reserve(&leases, at: 0)
        _ = leases.apply(.leased(key: "k", trip: 1, block: block(from: 500_000, count: 1)))
        #expect(reserve(&leases, at: 0, maxWait: 100_000) == [.refuse(wait: 500_000)])
        #expect(reserve(&leases, at: 0).first == .send(wait: 500_000, early: 0))
    }

    @Test("A trip that failed takes nothing and leaves the size; the next call starts another")
    func failedTrip() {
        var leases = RateLimitLeases(maximumSlots: 16)
        _ = reserve(&leases, at: 0)
        _ = reserve(&leases, at: 0)
        _ = leases.apply(.leased(key: "k", trip: 1, block: nil))
        #expect(leases.leases["k"]?.size == 1)
        #expect(leases.leases["k"]?.trip == nil)
        #expect(reserve(&leases, at: 5).first == .lease(key: "k", trip: 2, count: 1))
        // A report of a trip that is not the key's own changes nothing.
        _ = leases.apply(.leased(key: "k", trip: 1, block: block(from: 0, count: 5)))
        #expect(leases.leases["k"]?.inHand == 0)
    }

    @Test("A block is the slots separate reservations at the same moment would get, as many as fit within maxWait")
    func blockIsSeparateReservations() {
        for seed: UInt64 in [1, 42, 20_261_203] {
            print("RateLimitLeasesTests.blockIsSeparateReservations seed \(seed)")
            var random = SeededGenerator(seed: seed)
            for _ in 0..<2_000 {
                let count = Int.random(in: 1...20, using: &random)
                let limit = RateLimit(
                    count,
                    per: .milliseconds(Int.random(in: 1...2_000, using: &random)),
                    burst: Int.random(in: 1...count, using: &random)
                )
                let start = RateLimitState(
                    arrival: Time.random(in: 0...3_000_000, using: &random),
                    pausedUntil: Time.random(in: 0...3_000_000, using: &random)
                )
                let now = Time.random(in: 0...3_000_000, using: &random)
                let maxWait = Time.random(in: 0...2_000_000, using: &random)
                let asked = Int.random(in: 1...30, using: &random)
                var separate = start
                var slots: [Time] = []
                for _ in 0..<asked {
                    guard
                        case .send(let wait) = separate.apply(
                            .reserve(
                                now: now,
                                interval: limit.intervalMicroseconds,
                                tolerance: limit.toleranceMicroseconds,
                                maxWait: maxWait
                            )
                        )
                    else { break }
                    slots.append(now + wait)
                }
                var leased = start
                let (block, firstWait) = leased.lease(
                    now: now,
                    interval: limit.intervalMicroseconds,
                    tolerance: limit.toleranceMicroseconds,
                    maxWait: maxWait,
                    count: asked
                )
                let given = block.map { block in (0..<block.count).map(block.slot) } ?? []
                #expect(given == slots, "seed \(seed): \(limit), \(start), now \(now), maxWait \(maxWait)")
                #expect(leased == separate, "seed \(seed): the state after a block differs")
                if slots.isEmpty { #expect(firstWait > maxWait) } else { #expect(firstWait == slots[0] - now) }
            }
        }
    }

    @Test(
        "Seeded walk, 3 instances leasing from one limit: every slot sent once, any limit+1 sends span a window, no call left waiting"
    )
    func seededWalk() {
        for seed: UInt64 in [5, 77, 2_026, 20_261_203] {
            print("RateLimitLeases walk, seed \(seed)")
            var walk = LeaseWalk(seed: seed, limit: RateLimit(20, per: .seconds(1), burst: 3), instances: 3)
            walk.run(events: 20_000)
            let window = (walk.limit.period + walk.limit.margin).wholeMicroseconds
            let sent = walk.sent.sorted()
            #expect(Set(sent).count == sent.count, "seed \(seed): a slot was sent twice")
            let crowded = sent.indices.dropLast(walk.limit.count).first {
                sent[$0 + walk.limit.count] - sent[$0] < window
            }
            #expect(crowded == nil, "seed \(seed): \(walk.limit.count + 1) sends within one window")
            #expect(walk.problems.isEmpty, "seed \(seed): \(walk.problems.prefix(3))")
            #expect(walk.parked.isEmpty, "seed \(seed): calls still waiting once every trip ended")
            #expect(sent.count > 1_000, "seed \(seed): only \(sent.count) sent")
        }
    }
}

/// Instances leasing from one `RateLimitState` (the database), their trips answered after a random while, calls
/// arriving at random and asking again after the trip they waited for.
struct LeaseWalk {
    typealias Time = RateLimitLeases.Time
    let limit: RateLimit
    var random: SeededGenerator
    var database = RateLimitState()
    var instances: [RateLimitLeases]
    /// Trips on their way: which instance, its number, how many slots, when it is answered.
    var trips: [(instance: Int, trip: UInt64, count: Int, at: Time)] = []
    /// Calls waiting for a trip, by instance and trip.
    var parked: [(instance: Int, trip: UInt64)] = []
    var sent: [Time] = []
    var problems: [String] = []
    var now: Time = 1_000_000
    let maxWait: Time = 3_000_000

    init(seed: UInt64, limit: RateLimit, instances: Int) {
        self.limit = limit
        random = SeededGenerator(seed: seed)
        self.instances = Array(repeating: RateLimitLeases(maximumSlots: 8), count: instances)
    }

    mutating func run(events: Int) {
        for _ in 0..<events {
            now += Time.random(in: 0...30_000, using: &random)
            if let next = trips.indices.min(by: { trips[$0].at < trips[$1].at }), trips[next].at <= now {
                answer(trips.remove(at: next))
            } else {
                call(Int.random(in: 0..<instances.count, using: &random))
            }
        }
        while let next = trips.indices.min(by: { trips[$0].at < trips[$1].at }) {
            now = max(now, trips[next].at)
            answer(trips.remove(at: next))
        }
    }

    /// One call at `instance`, or a parked one asking again.
    mutating func call(_ instance: Int) {
        let event = RateLimitLeases.Event.reserve(
            key: "k",
            now: now,
            maxWait: maxWait,
            lateness: 25_000,
            most: limit.count,
            clock: RateLimitLeasesTests.agreed
        )
        for effect in instances[instance].apply(event) {
            switch effect {
            case .send(let wait, _):
                if wait > maxWait { problems.append("a wait of \(wait) beyond maxWait") }
                sent.append(now + wait)
            case .refuse: break
            case .lease(_, let trip, let count):
                if trips.contains(where: { $0.instance == instance }) { problems.append("two trips at once") }
                trips.append((instance, trip, count, now + Time.random(in: 100...200_000, using: &random)))
            case .await(let trip): parked.append((instance, trip))
            }
        }
    }

    /// A trip answered now (one in ten fails); the calls that waited for it ask again, or are refused as
    /// `reserveLeased` refuses them when the database had no slot within their `maxWait`.
    mutating func answer(_ trip: (instance: Int, trip: UInt64, count: Int, at: Time)) {
        var block: RateLimitBlock?
        var refused = false
        if Int.random(in: 0..<10, using: &random) > 0 {
            block =
                database.lease(
                    now: now,
                    interval: limit.intervalMicroseconds,
                    tolerance: limit.toleranceMicroseconds,
                    maxWait: maxWait,
                    count: trip.count
                ).block
            refused = block == nil
        }
        _ = instances[trip.instance].apply(.leased(key: "k", trip: trip.trip, block: block))
        let waiting = parked.filter { $0 == (trip.instance, trip.trip) }
        parked.removeAll { $0 == (trip.instance, trip.trip) }
        if refused { return }
        for _ in waiting { call(trip.instance) }
    }
}
#endif
