#if Postgres
import Foundation

/// Where a ``PostgresOutbox`` keeps its tables, who this instance is, and how it shares groups with the others.
public struct PostgresOutboxConfiguration: Sendable {
    /// The schema the outbox's tables live in, made if missing: a lowercase SQL identifier (letters, digits and
    /// `_`, starting with a letter or `_`, at most 48 characters). Instances that share a queue name the same one.
    public var schema: String
    /// This instance's name in the leases and in each write it settles: unique among the instances; by default
    /// the host's name, the process ID and a random suffix.
    public var instance: String
    /// How long a claimed group stays this instance's without a renewal; renewed every third of it. An instance
    /// that cannot renew stops sending the group before the lease can lapse, and another takes it over after.
    public var leaseDuration: Duration
    /// How often the sender looks for work without being woken: the fallback when a notification is lost (the
    /// listening connection dropped) and the pace at which lapsed leases are taken over.
    public var pollInterval: Duration
    /// The most groups this instance holds at once: the rest are left for the others.
    public var maximumGroups: Int
    /// The most groups it claims in one pass, so that instances starting together share the groups.
    public var groupsPerClaim: Int
    /// How long ``PostgresOutbox/enqueue(_:group:)``, ``PostgresOutbox/status(of:)``,
    /// ``PostgresOutbox/resume()`` and ``PostgresOutbox/prepare()`` wait for PostgreSQL before they fail with
    /// ``EndpointKit/EndpointError/Kind/outboxStorageFailed`` (a pool whose server is down keeps trying to
    /// connect). An enqueue on the caller's connection runs under the caller's own limits.
    public var timeout: Duration
    /// How long the row of a write that ended (sent, refused, expired, unknown or damaged) is kept, for
    /// ``PostgresOutbox/status(of:)`` to find it from any instance; a running sender then deletes it, a batch at
    /// each poll. A settled row holds no request, only its state, status and who settled it.
    public var keepSettled: Duration

    /// The defaults: schema `endpointkit`, leases of 30 s, a poll every 5 s, up to 64 groups, 4 per claim, 10 s for
    /// PostgreSQL to answer, settled rows kept for 7 days.
    public init(
        schema: String = "endpointkit",
        instance: String = Self.defaultInstance(),
        leaseDuration: Duration = .seconds(30),
        pollInterval: Duration = .seconds(5),
        maximumGroups: Int = 64,
        groupsPerClaim: Int = 4,
        timeout: Duration = .seconds(10),
        keepSettled: Duration = .seconds(7 * 24 * 3600)
    ) {
        self.schema = schema
        self.instance = instance
        self.leaseDuration = leaseDuration
        self.pollInterval = pollInterval
        self.maximumGroups = maximumGroups
        self.groupsPerClaim = groupsPerClaim
        self.timeout = timeout
        self.keepSettled = keepSettled
    }

    /// The host's name, this process's ID and a random suffix.
    public static func defaultInstance() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-"
            + UUID().uuidString.prefix(8).lowercased()
    }

    /// How long this process counts a lease as its own: a tenth less than the database does, so that it stops
    /// sending before any other instance may claim the group, whatever the two clocks' small drift.
    var localLeaseDuration: Duration { leaseDuration * 0.9 }

    /// Why the configuration cannot be used, if it cannot.
    var problem: String? {
        if let problem = schemaNameProblem(schema, of: "outbox") { return problem }
        if instance.isEmpty { return "the outbox instance name is empty" }
        if leaseDuration < .seconds(1) { return "the outbox lease duration is under one second" }
        if pollInterval <= .zero || timeout <= .zero || keepSettled <= .zero {
            return "the outbox poll interval, timeout or time settled rows are kept is not positive"
        }
        if maximumGroups < 1 || groupsPerClaim < 1 { return "the outbox may hold no group" }
        return nil
    }
}
#endif
