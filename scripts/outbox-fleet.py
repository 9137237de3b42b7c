#!/usr/bin/env python3
"""The PostgreSQL outbox's fleet proof, and its throughput figures.

    scripts/outbox-fleet.py proof [--writes N] [--groups G] [--senders S] [--kills K] [--restarts R]
                                  [--terminates T] [--seed X]
    scripts/outbox-fleet.py bench [--writes N] [--groups G] [--rounds R]

Needs the servers of scripts/test-servers.sh (its variables in the environment: the fault server is the upstream,
PostgreSQL the outbox) and ENDPOINTKIT_BIN, a build folder holding EndpointKitPostgresFleet (every trait on).

proof: S sender processes and one enqueuer. The enqueuer queues N writes over G groups, each in a transaction that
also inserts a row of its own table (`orders`); a seeded fifth of those transactions roll back. Meanwhile K SIGKILLs
of a random sender (each restarted under a new name), R immediate restarts of PostgreSQL (`pg_ctl restart -m
immediate`), T `pg_terminate_backend`s of a sender's connection, and the upstream loses one answer in 20
(`drop-one-in=20`) and holds each first try 20 ms (`delay-ms=20`), so that two tries of one group at once would
overlap there and be counted. Passes when every committed write was applied exactly once, in queue order within its group; no
rolled-back write was ever applied; the upstream never saw two tries of one group at once (its idem-overlap
count); and the drain finished with every write sent. Prints enqueue-to-settled p50/p99. Full size: 10,000 writes,
50 groups, 4 senders, 300 kills, 3 restarts, 30 terminates (the defaults); CI runs it small.

bench: the time to drain N writes queued beforehand over G groups with 1, 2 and 4 senders, and with the directory
outbox in one process, against a raw loop of the same idempotent POSTs (each group's in order, all groups at once),
interleaved in each of R rounds; prints writes per second and the median and range of the per-round ratios.
"""

import argparse
import random
import signal
import statistics
import subprocess
import sys
import time
import uuid

from fleet_common import ENV, get_json, psql_retrying, restart_postgres
from fleet_common import fleet_binary as binary_of


def fleet_binary():
    return binary_of("outbox-fleet")


class Senders:
    """S sender processes on one schema, each restartable under a new instance name."""

    def __init__(self, binary, schema, count, lease_ms):
        self.binary, self.schema, self.lease_ms = binary, schema, lease_ms
        self.generation = 0
        self.processes = [self.start(slot) for slot in range(count)]

    def start(self, slot):
        self.generation += 1
        return subprocess.Popen([self.binary, "sender", self.schema, ENV["ENDPOINTKIT_FAULT_URL"],
                                 f"s{slot}-{self.generation}", str(self.lease_ms)])

    def kill_one(self, rng):
        slot = rng.randrange(len(self.processes))
        self.processes[slot].send_signal(signal.SIGKILL)
        self.processes[slot].wait()
        self.processes[slot] = self.start(slot)

    def stop(self):
        for process in self.processes:
            process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()


def queued(schema):
    return int(psql_retrying(f"SELECT count(*) FROM {schema}.outbox_writes WHERE state = 'queued'")[0][0])


def chaos(rng, senders, faults, enqueuer, pace):
    """Carries out the faults in a random order, one every `pace` seconds, while the enqueuer runs (and after it
    until they are done)."""
    pool = ["kill"] * faults["kills"] + ["restart"] * faults["restarts"] + ["terminate"] * faults["terminates"]
    rng.shuffle(pool)
    for fault in pool:
        time.sleep(pace)
        if fault == "kill":
            senders.kill_one(rng)
        elif fault == "restart":
            restart_postgres()
        else:
            psql_retrying("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE application_name = 'fleet-sender' ORDER BY random() LIMIT 1")
    return len(pool)


def verify(schema, key):
    """Every failure of the proof's promises, as sentences."""
    failures = []
    committed = psql_retrying(
        f"SELECT w.group_name, o.body FROM {schema}.orders o JOIN {schema}.outbox_writes w ON w.id = o.write_id "
        "ORDER BY w.sequence")
    expected = {}
    for group, body in committed:
        expected.setdefault(group, []).append(body)
    applied = get_json(f"/idem-log/{key}")["groups"]
    committed_bodies = {body for _, body in committed}
    for group in sorted(set(expected) | set(applied)):
        got, want = applied.get(group, []), expected.get(group, [])
        if got != want:
            stray = [body for body in got if body not in committed_bodies]
            twice = sorted({body for body in got if got.count(body) > 1})
            failures.append(f"group {group}: {len(got)} applied, {len(want)} committed; not committed {stray[:3]}, "
                            f"applied twice {twice[:3]}, first difference at "
                            f"{next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))}")
    overlap = get_json(f"/count/idem-overlap/{key}")["count"]
    if overlap:
        failures.append(f"the upstream saw two tries of one group at once {overlap} times")
    states = dict(psql_retrying(f"SELECT state, count(*) FROM {schema}.outbox_writes GROUP BY state"))
    if set(states) != {"sent"}:
        failures.append(f"writes not sent at the end: {states}")
    return failures, len(committed)


def proof(arguments):
    binary = fleet_binary()
    seed = arguments.seed if arguments.seed is not None else random.randrange(1, 2**31)
    print(f"outbox fleet proof: seed {seed} (rerun with --seed {seed}); {arguments.writes} writes over "
          f"{arguments.groups} groups, {arguments.senders} senders, {arguments.kills} kills, {arguments.restarts} "
          f"PostgreSQL restarts, {arguments.terminates} terminated connections, one answer in 20 lost")
    rng = random.Random(seed)
    schema, key = f"fleet_{uuid.uuid4().hex[:12]}", f"fleet-{uuid.uuid4()}"
    started = time.monotonic()
    enqueuer = subprocess.Popen([binary, "enqueue", schema, ENV["ENDPOINTKIT_FAULT_URL"], key, str(arguments.writes),
                                 str(arguments.groups), str(seed), "20", "drop-one-in=20&delay-ms=20"], stdout=subprocess.PIPE, text=True)
    # The enqueuer makes the tables; the senders would make them too.
    psql_retrying(f"SELECT 1 FROM {schema}.orders LIMIT 1")
    senders = Senders(binary, schema, arguments.senders, arguments.lease_ms)
    faults = {"kills": arguments.kills, "restarts": arguments.restarts, "terminates": arguments.terminates}
    done = chaos(rng, senders, faults, enqueuer, arguments.pace)
    output, _ = enqueuer.communicate(timeout=1800)
    if enqueuer.returncode != 0:
        senders.stop()
        sys.exit(f"outbox fleet proof: the enqueuer failed: {output}")
    deadline = time.monotonic() + arguments.drain_timeout
    while queued(schema) > 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    elapsed = time.monotonic() - started
    senders.stop()
    failures, committed = verify(schema, key)
    latency = psql_retrying(
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) "
        f"FROM (SELECT extract(epoch FROM settled_at - queued_at) * 1000 AS ms FROM {schema}.outbox_writes) t")[0]
    print(f"outbox fleet proof: {output.strip()} (committed, rolled back); {committed} applied once each; "
          f"{done} faults; drained in {elapsed:.1f} s; enqueue-to-settled p50 {float(latency[0]):.0f} ms, "
          f"p99 {float(latency[1]):.0f} ms")
    psql_retrying(f"DROP SCHEMA {schema} CASCADE")
    for failure in failures:
        print(f"outbox fleet proof: FAILED: {failure}")
    sys.exit(1 if failures else 0)


def drain_seconds(binary, senders, writes, groups):
    """Queues `writes` with no sender running, then times `senders` senders draining them."""
    schema, key = f"bench_{uuid.uuid4().hex[:12]}", f"bench-{uuid.uuid4()}"
    subprocess.run([binary, "enqueue", schema, ENV["ENDPOINTKIT_FAULT_URL"], key, str(writes), str(groups), "1",
                    "0"], check=True, stdout=subprocess.DEVNULL)
    total = queued(schema)
    started = time.monotonic()
    fleet = Senders(binary, schema, senders, 30000)
    while queued(schema) > 0:
        time.sleep(0.02)
    elapsed = time.monotonic() - started
    fleet.stop()
    psql_retrying(f"DROP SCHEMA {schema} CASCADE")
    return total, elapsed


def bench(arguments):
    binary = fleet_binary()
    rows = {name: [] for name in ["raw", "1 sender", "2 senders", "4 senders", "directory"]}
    for _ in range(arguments.rounds):
        out = subprocess.run([binary, "raw", ENV["ENDPOINTKIT_FAULT_URL"], f"raw-{uuid.uuid4()}", str(arguments.writes),
                              str(arguments.groups)], check=True, capture_output=True, text=True).stdout.split()
        rows["raw"].append(int(out[1]) / int(out[2]) * 1000)
        for senders in (1, 2, 4):
            total, seconds = drain_seconds(binary, senders, arguments.writes, arguments.groups)
            rows[f"{senders} sender{'s' if senders > 1 else ''}"].append(total / seconds)
        out = subprocess.run([binary, "directory", ENV["ENDPOINTKIT_FAULT_URL"], f"dir-{uuid.uuid4()}",
                              str(arguments.writes), str(arguments.groups)],
                             check=True, capture_output=True, text=True).stdout.split()
        rows["directory"].append(int(out[1]) / int(out[2]) * 1000)
    print(f"writes per second, {arguments.writes} writes over {arguments.groups} groups, {arguments.rounds} rounds "
          "(median, range; ratio to the raw loop of the same round: median, range)")
    for name, values in rows.items():
        ratios = [value / raw for value, raw in zip(values, rows["raw"])]
        print(f"  {name:10} {statistics.median(values):8.0f}  ({min(values):.0f}-{max(values):.0f})   "
              f"ratio {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("proof")
    run.add_argument("--writes", type=int, default=10000)
    run.add_argument("--groups", type=int, default=50)
    run.add_argument("--senders", type=int, default=4)
    run.add_argument("--kills", type=int, default=300)
    run.add_argument("--restarts", type=int, default=3)
    run.add_argument("--terminates", type=int, default=30)
    run.add_argument("--seed", type=int)
    run.add_argument("--pace", type=float, default=0.25, help="seconds between two faults")
    run.add_argument("--lease-ms", type=int, default=2000)
    run.add_argument("--drain-timeout", type=float, default=600)
    measure = commands.add_parser("bench")
    measure.add_argument("--writes", type=int, default=2000)
    measure.add_argument("--groups", type=int, default=50)
    measure.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    proof(arguments) if arguments.command == "proof" else bench(arguments)


if __name__ == "__main__":
    main()
