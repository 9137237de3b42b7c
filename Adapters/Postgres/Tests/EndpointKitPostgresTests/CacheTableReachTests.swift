#if Postgres && AsyncHTTPClient
import EndpointKitTesting
import Testing

@testable import EndpointKitPostgres

/// The cache's choice between the shared table and doing without it.
struct CacheTableReachTests {
    @Test("After a failure calls skip the table for the interval, then one call tries it while the others skip")
    func skipsThenProbesOnce() {
        var reach = CacheTableReach(retryInterval: 1_000)
        #expect(reach.apply(.route(now: 10)) == .useTable)
        reach.apply(.failed(now: 20))
        #expect(reach.apply(.route(now: 500)) == .skipTable)
        #expect(reach.apply(.route(now: 1_020)) == .useTable)
        #expect(reach.apply(.route(now: 1_021)) == .skipTable, "one call tries; the others go on skipping")
        reach.apply(.answered)
        #expect(reach.apply(.route(now: 1_022)) == .useTable)
    }

    @Test("Seeded walk: while failing, at most one trip per interval; after an answer, every call uses the table")
    func seededWalk() {
        for seed: UInt64 in [1, 7, 42, 20_261_203] {
            print("CacheTableReach walk, seed \(seed)")
            var generator = SeededGenerator(seed: seed)
            var reach = CacheTableReach(retryInterval: 100)
            var now: CacheTableReach.Time = 0
            var lastFailure: CacheTableReach.Time?
            var tripsSinceFailure = 0
            for _ in 0..<20_000 {
                now += CacheTableReach.Time.random(in: 0...30, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    reach.apply(.failed(now: now))
                    (lastFailure, tripsSinceFailure) = (now, 0)
                case 1:
                    reach.apply(.answered)
                    lastFailure = nil
                    #expect(reach.apply(.route(now: now)) == .useTable, "seed \(seed)")
                default:
                    let route = reach.apply(.route(now: now))
                    guard let failed = lastFailure else {
                        #expect(route == .useTable, "seed \(seed)")
                        continue
                    }
                    if route == .useTable { tripsSinceFailure += 1 }
                    let intervals = Int((now - failed) / 100)
                    #expect(tripsSinceFailure <= intervals, "seed \(seed): \(tripsSinceFailure) trips in \(intervals)")
                }
            }
        }
    }
}
#endif
