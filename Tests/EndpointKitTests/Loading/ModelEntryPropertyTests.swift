import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

/// A value as the simulated server gave it (its version), or an optimistic one (`write` names its write).
private struct Versioned: Sendable, Equatable {
    var version: Int
    var write: UInt64?
}

/// A seeded random walk of `ModelEntry.apply` alone, with no network: loads that start and finish in any order
/// (reading the server as it was when they started), a server that changes on its own, invalidations, puts,
/// optimistic writes that are answered, accepted or fail, and observers that come and go. After every event it
/// checks what the store promises.
private struct EntryWalk {
    var random: SeededGenerator
    var entry = ModelEntry<Versioned>()
    var now = Duration.zero
    var server = 0
    /// Loads in flight: what each started under, and the version it read.
    var loads: [(start: ModelEntry<Versioned>.LoadStart, read: Int)] = []
    /// Optimistic writes in flight, by number, with the value shown before each.
    var writes: [(number: UInt64, previous: Versioned?)] = []
    var invalidations = 0
    /// The highest confirmed version an observer has been shown.
    var highestShown = 0
    var violations: [String] = []

    mutating func step(_ index: Int) {
        now += .milliseconds(Int64(random.next() % 5))
        let choice = random.next() % 100
        switch choice {
        case 0..<20: startLoad()
        case 20..<45: finishLoad()
        case 45..<52: server += 1
        case 52..<62: invalidate()
        case 62..<68: put()
        case 68..<78: startWrite()
        case 78..<90: settleWrite()
        case 90..<95: observe(entry.apply(.subscribed, now: now))
        default: observe(entry.apply(.unsubscribed, now: now))
        }
        if violations.count > 5 { return }
        _ = index
    }

    mutating func startLoad() {
        let effects = entry.apply(.loadStarted, now: now)
        guard let start = effects.loadStart else { return violations.append("a started load has no start") }
        loads.append((start, server))
        observe(effects)
    }

    mutating func finishLoad() {
        guard !loads.isEmpty else { return }
        let (start, read) = loads.remove(at: Int(random.next() % UInt64(loads.count)))
        let roll = random.next() % 20
        let isLastTry = roll == 0
        let result: Result<ModelEntry<Versioned>.Loaded, EndpointError> =
            switch roll {
            case 1, 2: .failure(EndpointError(.transportFailed, "the server failed"))
            case 3: .failure(EndpointError(.cancelled, "cancelled"))
            default:
                .success(.init(model: Versioned(version: read), isUnchanged: entry.confirmedValue?.version == read))
            }
        let invalidatedSince = start.invalidations != entry.invalidations
        let valueBefore = entry.value
        let effects = entry.apply(.loadFinished(start: start, result: result, isLastTry: isLastTry), now: now)
        if case .value(let served)? = effects.loadOutcome {
            if invalidatedSince, !isLastTry {
                violations.append("a load that began before an invalidation served v\(served.version) as fresh")
            }
            if served != entry.value, entry.value != nil {
                violations.append("the value served (v\(served.version)) is not the one on show")
            }
        }
        if valueBefore?.write != nil, entry.pending > 0, entry.value != valueBefore {
            violations.append("a load replaced an optimistic value while its write was pending")
        }
        observe(effects)
    }

    mutating func invalidate() {
        invalidations += 1
        let effects = entry.apply(.invalidated, now: now)
        if effects.refetches != (entry.observers > 0) { violations.append("an observed invalidation did not refetch") }
        observe(effects)
    }

    mutating func put() {
        server += 1
        observe(entry.apply(.written(Versioned(version: server), confirmed: true), now: now))
    }

    mutating func startWrite() {
        let previous = entry.value
        let effects = entry.apply(.written(Versioned(version: -1, write: entry.writes + 1), confirmed: false), now: now)
        guard let number = effects.writeNumber else { return violations.append("a write has no number") }
        writes.append((number, previous))
        observe(effects)
    }

    mutating func settleWrite() {
        guard !writes.isEmpty else { return }
        let (number, previous) = writes.remove(at: Int(random.next() % UInt64(writes.count)))
        let outcome: ModelEntry<Versioned>.WriteOutcome
        switch random.next() % 3 {
        case 0:
            server += 1
            outcome = .answered(Versioned(version: server))
        case 1:
            server += 1
            outcome = .accepted
        default: outcome = .failed
        }
        let isNewest = entry.writes == number
        let valueBefore = entry.value
        let confirmedBefore = entry.confirmedValue
        observe(entry.apply(.writeSettled(write: number, outcome: outcome, previous: previous), now: now))
        if !isNewest, entry.value != valueBefore {
            violations.append("settling write \(number) changed the value, though a newer write stands")
        }
        if isNewest, case .failed = outcome, entry.value != (confirmedBefore ?? previous) {
            violations.append("a rollback of write \(number) did not go back to the newest confirmed value")
        }
    }

    /// What an observer sees after a change: never a confirmed version older than one it was shown.
    mutating func observe(_ effects: ModelEntry<Versioned>.Effects) {
        guard effects.emits, let shown = entry.state.value, shown.write == nil else { return }
        if shown.version < highestShown {
            violations.append("an observer saw v\(shown.version) after v\(highestShown)")
        }
        highestShown = max(highestShown, shown.version)
    }
}

/// One seed at a time, each walk on a thread of its own: a walk keeps a core busy for seconds, and the other suites
/// need the cooperative threads.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ModelEntryPropertyTests {
    /// Fixed seeds, the same in every CI run; EK_ENTRY_SEED runs another in their place.
    @Test(
        "100,000 random events per seed keep every promise of the store's transition function",
        arguments: [UInt64(1), 20_261_127, 0xC0FF_EE00]
    )
    func randomWalk(seed fixed: UInt64) async {
        let seed = ProcessInfo.processInfo.environment["EK_ENTRY_SEED"].flatMap { UInt64($0) } ?? fixed
        print("ModelEntryPropertyTests seed \(seed) (rerun with EK_ENTRY_SEED=\(seed))")
        let violations = await onOwnThread {
            var walk = EntryWalk(random: SeededGenerator(seed: seed))
            for index in 0..<100_000 where walk.violations.isEmpty { walk.step(index) }
            return walk.violations
        }

        #expect(violations.isEmpty, "seed \(seed): \(violations.prefix(3))")
    }
}
