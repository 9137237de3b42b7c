#if Postgres
import EndpointKit

/// How far the database's clock is ahead of this process's, as a range known to hold it, narrowed by every answer
/// that read the database's clock; changed only by ``observe(read:sent:answered:)``.
///
/// An answer says that the database read `read` on its clock at some moment between `sent` (the statement's start
/// on this process's clock, plus what it ran before reading) and `answered` (its arrival here), so the offset lies
/// between `read − answered` and `read − sent`. Each answer's range is intersected with the range so far, widened
/// by the drift the two clocks may have had since (``drift``): one quick answer keeps the slots of later, slow
/// answers precise. A slot the database gives at `s` on its clock is then at `s − lowest` here at the latest, and
/// at most the range's width earlier. An answer whose range misses the range so far (a clock was stepped) starts
/// the range again from itself alone.
///
/// Times are microseconds; an offset is the database's clock less this process's.
struct ClockOffset: Sendable, Hashable {
    typealias Time = RateLimitState.Time

    /// The most the two clocks are taken to drift apart: 100 µs a second (100 ppm), many times what clocks that NTP
    /// keeps drift, and far more than one machine's two clocks do.
    static let drift: Time = 100

    /// The least the offset can be, or `nil` before the first answer.
    private(set) var lowest: Time?
    /// The most the offset can be.
    private(set) var highest: Time = 0
    /// When (on this process's clock) the range was last narrowed.
    private(set) var at: Time = 0

    /// The range at `now`: as narrowed, widened by the drift since.
    func range(at now: Time) -> ClockRange? {
        guard let lowest else { return nil }
        let widening = (max(0, now - at) * Self.drift + 999_999) / 1_000_000
        return ClockRange(lowest: lowest - widening, highest: highest + widening)
    }

    /// Narrows the range with an answer that read `read` on the database's clock between `sent` and `answered` on
    /// this process's, and returns the range.
    mutating func observe(read: Time, sent: Time, answered: Time) -> ClockRange {
        var range = ClockRange(lowest: read - answered, highest: read - min(sent, answered))
        if let known = self.range(at: answered), known.lowest <= range.highest, range.lowest <= known.highest {
            range = ClockRange(lowest: max(known.lowest, range.lowest), highest: min(known.highest, range.highest))
        }
        (lowest, highest, at) = (range.lowest, range.highest, answered)
        return range
    }
}

/// The offsets the database's clock may have from this process's: a slot at `s` on the database's clock is at
/// `s − lowest` here at the latest, and at most ``width`` earlier.
struct ClockRange: Sendable, Hashable {
    /// The least the offset can be.
    var lowest: ClockOffset.Time
    /// The most it can be.
    var highest: ClockOffset.Time

    /// How much earlier than its latest a slot may be.
    var width: ClockOffset.Time { highest - lowest }

    /// Where `slot`, on the database's clock, is here at the latest.
    func latest(_ slot: ClockOffset.Time) -> ClockOffset.Time { slot - lowest }
}

/// One answer's reading of the database's clock: the time read, and the moments on this process's clock between
/// which it was read.
struct ClockReading: Sendable, Hashable {
    /// The time read, on the database's clock.
    let read: ClockOffset.Time
    /// It was read no sooner than this, on this process's clock.
    let sent: ClockOffset.Time
    /// Nor later than this: when the answer arrived.
    let answered: ClockOffset.Time

    /// The reading of a statement that began at `statementStart` on the database's clock and read it `ran` later,
    /// sent at `sent` and answered at `answered` on this process's.
    init(
        _ statementStart: ClockOffset.Time,
        ran: ClockOffset.Time,
        sent: ClockOffset.Time,
        at answered: ClockOffset.Time
    ) {
        read = statementStart + ran
        self.sent = sent + min(max(0, ran), max(0, answered - sent))
        self.answered = answered
    }
}
#endif
