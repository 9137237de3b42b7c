#if AsyncHTTPClient
import EndpointKit
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// The driver of ``AdmissionState``: one lock for the state and the continuations of waiting calls, which it
/// resumes after the lock is released; wakes are timers on an event loop.
final class Admission: Sendable {
    private struct Shared {
        var state: AdmissionState
        var lastCall: AdmissionState.Call = 0
        /// Calls suspended until they are admitted or refused.
        var waiting: [AdmissionState.Call: CheckedContinuation<Void, any Error>] = [:]
        /// What happened to calls before their continuation was stored: applied when it is.
        var decided: [AdmissionState.Call: AdmissionState.Effect] = [:]
        var lastOrigin = LastOrigin()
    }

    private let shared: NIOLockedValueBox<Shared>
    /// An effect, with the continuation of the call it is for when that call waits.
    private typealias Routed = (AdmissionState.Effect, CheckedContinuation<Void, any Error>?)
    private let timers: any EventLoop

    /// The quiet time ``AdmissionState`` waits for after cancellations of waiting calls, in nanoseconds (50 ms):
    /// far longer than the gap between two cancellations of a loop, even on a loaded machine; short beside a request.
    static let grace: UInt64 = 50_000_000

    init(http1Limit: Int, http2Limit: Int, timers: any EventLoop) {
        shared = NIOLockedValueBox(
            Shared(state: AdmissionState(http1Limit: http1Limit, http2Limit: http2Limit, grace: Self.grace))
        )
        self.timers = timers
    }

    private static var now: AdmissionState.Instant { NIODeadline.now().uptimeNanoseconds }

    /// An admitted call: given back by ``end(_:http2:)``.
    struct Ticket: Sendable {
        fileprivate let call: AdmissionState.Call
        fileprivate let origin: OriginKey
    }

    /// Waits until a call to `url`'s origin may send, first come first served, and returns its ticket; throws
    /// ``EndpointError/Kind/cancelled`` (having sent nothing) when the task is cancelled first.
    func enter(_ url: URL) async throws -> Ticket {
        let (call, origin, isAdmitted, others) = shared.withLockedValue {
            shared -> (AdmissionState.Call, OriginKey, Bool, [Routed]) in
            let origin = shared.lastOrigin.key(for: url)
            shared.lastCall += 1
            let call = shared.lastCall
            let effects = shared.state.apply(.asked(call, origin: origin, now: Self.now))
            if effects.count == 1, effects[0] == .admit(call) { return (call, origin, true, []) }
            let others = Self.route(effects.filter { $0 != .admit(call) }, &shared)
            return (call, origin, effects.contains(.admit(call)), others)
        }
        carryOut(others)
        // Room at once: no suspension, the common case.
        if isAdmitted { return Ticket(call: call, origin: origin) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let decision = shared.withLockedValue { shared -> AdmissionState.Effect? in
                    if let decision = shared.decided.removeValue(forKey: call) { return decision }
                    shared.waiting[call] = continuation
                    return nil
                }
                if let decision { Self.resume(continuation, decision) }
            }
        } onCancel: {
            apply(.cancelled(call, origin: origin, now: Self.now))
        }
        return Ticket(call: call, origin: origin)
    }

    /// Gives `ticket`'s place back; `http2` says how the origin answered, when it did. Ending twice changes nothing.
    func end(_ ticket: Ticket, http2: Bool? = nil) {
        apply(.ended(ticket.call, origin: ticket.origin, cancelled: Task.isCancelled, http2: http2, now: Self.now))
    }

    /// Applies `event` and carries out what it decides.
    private func apply(_ event: AdmissionState.Event) {
        carryOut(shared.withLockedValue { shared in Self.route(shared.state.apply(event), &shared) })
    }

    /// Pairs each effect on a call with the call's continuation; one not stored yet finds its effect in
    /// `decided` when it is.
    private static func route(_ effects: [AdmissionState.Effect], _ shared: inout Shared) -> [Routed] {
        effects.map { effect in
            guard let call = effect.call else { return (effect, nil) }
            guard let continuation = shared.waiting.removeValue(forKey: call) else {
                shared.decided[call] = effect
                return (effect, nil)
            }
            return (effect, continuation)
        }
    }

    /// Resumes the calls decided (outside the lock) and sets the timer of a wake.
    private func carryOut(_ effects: [Routed]) {
        for (effect, continuation) in effects {
            if let continuation { Self.resume(continuation, effect) }
            if case .wake(let at) = effect {
                timers.scheduleTask(deadline: .uptimeNanoseconds(at)) { self.apply(.woke(now: Self.now)) }
            }
        }
    }

    private static func resume(_ continuation: CheckedContinuation<Void, any Error>, _ effect: AdmissionState.Effect) {
        if case .admit = effect { return continuation.resume() }
        continuation.resume(
            throwing: EndpointError(.cancelled, "the task was cancelled while waiting for a connection")
        )
    }

    /// A ticket given back when the last reference to it goes, if ``end(http2:)`` did not give it back before: a
    /// streamed body's, which its reader may leave at any point.
    final class Slot: Sendable {
        private let admission: Admission
        private let ticket: Ticket

        init(_ ticket: Ticket, of admission: Admission) {
            self.admission = admission
            self.ticket = ticket
        }

        func end(http2: Bool? = nil) { admission.end(ticket, http2: http2) }

        deinit { end() }
    }
}

extension AdmissionState.Effect {
    /// The call the effect is for, if any.
    var call: AdmissionState.Call? {
        switch self {
        case .admit(let call), .refuse(let call): call
        case .wake: nil
        }
    }
}
#endif
