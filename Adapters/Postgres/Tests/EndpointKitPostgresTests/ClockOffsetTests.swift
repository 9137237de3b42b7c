#if Postgres && AsyncHTTPClient
import EndpointKitTesting
import Testing

@testable import EndpointKitPostgres

/// How far the database's clock stands from the process's, narrowed answer by answer (`ClockOffset`).
@Suite struct ClockOffsetTests {
    typealias Time = ClockOffset.Time

    @Test("One answer: the offset lies between the time read less the arrival and the time read less the sending")
    func oneAnswer() {
        var offset = ClockOffset()
        #expect(offset.range(at: 0) == nil)
        #expect(
            offset.observe(read: 5_000_000, sent: 1_000, answered: 61_000)
                == ClockRange(lowest: 4_939_000, highest: 4_999_000)
        )
    }

    @Test("A quick answer keeps a later slow one precise; the range widens by 100 µs a second after it")
    func quickThenSlow() {
        var offset = ClockOffset()
        _ = offset.observe(read: 5_000_000, sent: 1_000, answered: 1_300)
        // A second later, an answer 60 ms slow: its own range is 60 ms wide, the known one 300 µs and 2 × 100 µs.
        let range = offset.observe(read: 6_000_000, sent: 941_300, answered: 1_001_300)
        #expect(range == ClockRange(lowest: 4_998_700, highest: 4_999_100))
        #expect(offset.range(at: 3_001_300) == ClockRange(lowest: 4_998_500, highest: 4_999_300))
    }

    @Test("An answer whose range misses the known one (a clock was stepped) starts the range again from itself")
    func steppedClock() {
        var offset = ClockOffset()
        _ = offset.observe(read: 5_000_000, sent: 1_000, answered: 1_300)
        #expect(
            offset.observe(read: 9_000_000, sent: 2_000, answered: 2_500)
                == ClockRange(lowest: 8_997_500, highest: 8_998_000)
        )
    }

    @Test("A reading counts what the statement ran before reading the clock, within the trip (clamped)")
    func reading() {
        let reading = ClockReading(100, ran: 20, sent: 1_000, at: 1_500)
        #expect((reading.read, reading.sent, reading.answered) == (120, 1_020, 1_500))
        #expect(ClockReading(100, ran: -5, sent: 1_000, at: 1_500).sent == 1_000)
        #expect(ClockReading(100, ran: 900, sent: 1_000, at: 1_500).sent == 1_500)
    }

    @Test("The range always holds the true offset while the clocks drift within 100 ppm (seeded: 4 × 20,000 answers)")
    func seededWalk() {
        for seed: UInt64 in [1, 42, 20_261_204, 0xC10C] {
            print("ClockOffsetTests.seededWalk seed \(seed)")
            var random = SeededGenerator(seed: seed)
            var offset = ClockOffset()
            var now: Time = 1
            var trueOffset = Time.random(in: -1_000_000_000...1_000_000_000, using: &random)
            // Parts per million the database's clock runs faster; an answer's trip out and back.
            let drift = Time.random(in: -ClockOffset.drift...ClockOffset.drift, using: &random)
            var carried: Time = 0
            for step in 0..<20_000 {
                let elapsed = Time.random(in: 0...2_000_000, using: &random)
                now += elapsed
                carried += elapsed * drift
                trueOffset += carried / 1_000_000
                carried %= 1_000_000
                let out = Time.random(in: 0...(step % 7 == 0 ? 80_000 : 400), using: &random)
                let back = Time.random(in: 0...(step % 5 == 0 ? 80_000 : 400), using: &random)
                let range = offset.observe(read: now + out + trueOffset, sent: now, answered: now + out + back)
                guard range.lowest <= trueOffset, trueOffset <= range.highest else {
                    Issue.record("seed \(seed), step \(step): \(range) misses \(trueOffset)")
                    return
                }
                now += out + back
            }
        }
    }
}
#endif
