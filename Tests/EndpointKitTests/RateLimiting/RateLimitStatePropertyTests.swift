import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

/// A seeded random walk of `RateLimitState.apply` alone: callers asking for slots at times that only move on (often
/// many at one instant, sometimes after a long quiet), with waits they accept of any length, and the upstream asking
/// every caller to wait. After every event it checks what `RateLimiter` promises, against knowledge of its own:
/// the slots granted (never the state's arrival time) and the pauses asked for.
///
/// - No window of `period + margin` holds more than `count` slots (so none of `period` at the server does, for
///   requests that reach it within `margin` of their slot).
/// - No slot before its request, nor inside a pause asked for before it; slots in the order asked.
/// - No slot wasted: a slot that waits, and not for a pause, is at most one interval after the slot before it.
/// - A refusal is a slot beyond the caller's wait, and reserves nothing (the state is as it was).
///
/// Defects planted in `apply` that it catches, each tried once: the tolerance counted twice (bursts too large); the
/// arrival time moved on from `now` instead of from the slot (a window too full after a wait); pauses ignored (slots
/// inside them); a refusal that reserves its slot anyway; an interval added twice per slot (half the limit used).
private struct LimitWalk {
    var random: SeededGenerator
    var state = RateLimitState()
    var limit: RateLimit
    var now: RateLimitState.Time = 1
    /// Every slot granted, in the order granted.
    var slots: [RateLimitState.Time] = []
    /// The latest end of a pause asked for so far.
    var pausedUntil: RateLimitState.Time = 0
    var violations: [String] = []
    var seen: [String: Int] = [:]

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
        let count = Int.random(in: 1...40, using: &random)
        limit = RateLimit(
            count,
            per: .milliseconds(Int.random(in: 1...5_000, using: &random)),
            burst: Int.random(in: 1...count, using: &random),
            margin: .milliseconds(Int.random(in: 0...100, using: &random))
        )
    }

    mutating func step() {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<60: break
        case 60..<95: now += Int64.random(in: 0...limit.intervalMicroseconds * 2, using: &random)
        case 95..<99: now += Int64.random(in: 0...(limit.period + limit.margin).wholeMicroseconds * 3, using: &random)
        default: pause()
        }
        reserve()
    }

    mutating func pause() {
        let duration = Int64.random(in: 0...limit.period.wholeMicroseconds * 2, using: &random)
        _ = state.apply(.pause(now: now, duration: duration))
        pausedUntil = max(pausedUntil, now + duration)
        seen["pause", default: 0] += 1
    }

    mutating func reserve() {
        let maxWait = Int64.random(in: 0...limit.period.wholeMicroseconds * 2, using: &random)
        let before = state
        let event = RateLimitState.Event.reserve(
            now: now,
            interval: limit.intervalMicroseconds,
            tolerance: limit.toleranceMicroseconds,
            maxWait: maxWait
        )
        switch state.apply(event) {
        case .refuse(let wait):
            seen["refused", default: 0] += 1
            if wait <= maxWait { violations.append("refused a slot \(wait) µs away, within the wait \(maxWait)") }
            if state != before { violations.append("a refusal changed the state") }
        case .send(let wait):
            if wait > maxWait { violations.append("granted a slot \(wait) µs away, beyond the wait \(maxWait)") }
            granted(now + wait)
        case .paused: violations.append("a reservation answered as a pause")
        }
    }

    mutating func granted(_ slot: RateLimitState.Time) {
        if slot < now { violations.append("a slot before its request") }
        if slot < pausedUntil { violations.append("a slot at \(slot) inside a pause until \(pausedUntil)") }
        if let last = slots.last {
            if slot < last { violations.append("a slot at \(slot) before the one granted before it (\(last))") }
            if slot > max(now, pausedUntil), slot - last > limit.intervalMicroseconds {
                violations.append("a slot waited \(slot - last) µs after the last, more than one interval")
            }
        }
        slots.append(slot)
        let window = (limit.period + limit.margin).wholeMicroseconds
        if slots.count > limit.count, slot - slots[slots.count - 1 - limit.count] < window {
            violations.append("\(limit.count + 1) slots within \(slot - slots[slots.count - 1 - limit.count]) µs")
        }
        let kind = slot == now ? "at once" : slot == pausedUntil ? "after a pause" : "waited"
        seen[kind, default: 0] += 1
    }
}

@Suite(.timeLimit(.minutes(2))) struct RateLimitStatePropertyTests {
    /// Fixed seeds, run in CI every time, and one drawn at random (printed, to rerun with EK_RATE_SEED).
    static let seeds: [UInt64] = [1, 20_261_129, 0xFEED_F00D, 0]

    @Test(
        "200 random limits × 2,000 random events keep every promise of the rate limit's transition",
        arguments: seeds
    )
    func randomWalk(seed fixed: UInt64) {
        let given = ProcessInfo.processInfo.environment["EK_RATE_SEED"].flatMap { UInt64($0) }
        let seed = fixed != 0 ? fixed : given ?? UInt64.random(in: 1...UInt64.max)
        print("RateLimitStatePropertyTests seed \(seed) (rerun the random one with EK_RATE_SEED=\(seed))")
        var seen: [String: Int] = [:]
        for walkNumber in 0..<200 {
            var walk = LimitWalk(seed: seed &+ UInt64(walkNumber))
            for _ in 0..<2_000 { walk.step() }
            #expect(
                walk.violations.isEmpty,
                "seed \(seed), walk \(walkNumber), \(walk.limit): \(walk.violations.prefix(3))"
            )
            seen.merge(walk.seen, uniquingKeysWith: +)
        }
        // A walk that never reached a case proves nothing about it.
        for name in ["at once", "waited", "after a pause", "refused", "pause"] {
            #expect(seen[name, default: 0] > 0, "seed \(seed) never reached \(name)")
        }
    }
}
