#!/usr/bin/env python3
"""The fleet HTTP cache's proof: N processes share one cache in PostgreSQL, and the upstream sends each response once.

    scripts/cache-fleet.py proof [--instances N] [--resources R] [--tokens T] [--passes P] [--concurrency C]
                                 [--seed S]

Needs the servers of scripts/test-servers.sh (its variables in the environment: the fault server is the upstream,
PostgreSQL the cache) and ENDPOINTKIT_BIN, a build folder holding EndpointKitPostgresFleet (every trait on).

Phase 1 starts N instances (`EndpointKitPostgresFleet cache`) at once, each with an HTTP cache in one PostgreSQL
schema (PostgresCacheStorage: an in-memory tier in front of the shared table). Each fetches the fault server's
/cached/KEY-r for R resources (ETag, `max-age=0` for even r and `max-age=60` for odd) with each of T tokens, P passes,
each pass in a seeded order of its own, C calls at once. The fault server counts its full (200) and 304 answers per
resource and token, and its body names the token it was asked with.

Phase 2 starts one more instance, with an empty memory and the shared table warm, for one pass: what a restarted
instance sends.

Passes when the upstream sent at most one full response per resource and token in all, no response named another
token than its call's (nothing served across credentials), no call failed, and the restarted instance got no full
response (its first pass is served from the table or by 304s). Prints the sources of every pass and the call times.
Full size: 4 instances, 200 resources, 2 tokens, 3 passes, 8 at once; CI runs it small.
"""

import argparse
import subprocess
import sys
import uuid

from fleet_common import ENV, fleet_binary, get_json, psql


def start(binary, arguments, key, schema, instance, passes, seed):
    command = [binary, "cache", schema, ENV["ENDPOINTKIT_FAULT_URL"], key, instance, str(arguments.resources),
               str(arguments.tokens), str(passes), str(arguments.concurrency), str(seed)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def reports(processes, name, failures):
    """Each process's pass lines, parsed; a process that failed is a failure."""
    lines = []
    for number, process in enumerate(processes):
        output = process.communicate(timeout=600)[0]
        if process.returncode != 0:
            failures.append(f"{name}: instance {number} exited {process.returncode}: {output.strip()[-300:]}")
        lines += [dict(item.split("=") for item in line.split()[2:]) | {"instance": line.split()[1]}
                  for line in output.splitlines() if line.startswith("cache ")]
    return lines


def summary(lines, passes):
    """Per pass: the sources over every instance, and the worst instance's call times."""
    text = []
    for number in range(1, passes + 1):
        rows = [line for line in lines if line["pass"] == str(number)]
        total = {name: sum(int(row[name]) for row in rows) for name in ("network", "cache", "revalidated", "wrong",
                                                                          "failed")}
        text.append(f"pass {number}: {total['network']} full, {total['revalidated']} revalidated (304), "
                    f"{total['cache']} from the cache, {total['wrong']} for another token, {total['failed']} failed; "
                    f"call p50 {max((int(row['p50']) for row in rows), default=0)} µs, p99 "
                    f"{max((int(row['p99']) for row in rows), default=0)} µs (worst instance)")
    return text


def upstream(key, arguments):
    """The upstream's full and 304 answers per (resource, token)."""
    counts = {}
    for resource in range(arguments.resources):
        for token in range(arguments.tokens):
            full = get_json(f"/count/cached-200-for/{key}-{resource}/t{token}")["count"]
            revalidated = get_json(f"/count/cached-304-for/{key}-{resource}/t{token}")["count"]
            counts[(resource, token)] = (full, revalidated)
    return counts


def proof(arguments):
    binary = fleet_binary("cache-fleet")
    key, schema = f"fleet-cache-{uuid.uuid4().hex[:12]}", f"fleet_cache_{uuid.uuid4().hex[:8]}"
    pairs = arguments.resources * arguments.tokens
    print(f"cache fleet proof: {arguments.instances} instances, {arguments.resources} resources x {arguments.tokens} "
          f"tokens, {arguments.passes} passes each, {arguments.concurrency} calls at once, seed {arguments.seed}",
          flush=True)
    failures = []
    try:
        processes = [start(binary, arguments, key, schema, f"i{number}", arguments.passes, arguments.seed + number)
                     for number in range(arguments.instances)]
        lines = reports(processes, "phase 1", failures)
        for text in summary(lines, arguments.passes):
            print(f"cache fleet proof: {arguments.instances} instances: {text}", flush=True)
        before = upstream(key, arguments)
        full = sum(counts[0] for counts in before.values())
        over = sorted(pair for pair, counts in before.items() if counts[0] > 1)
        print(f"cache fleet proof: the upstream sent {full} full responses for {pairs} resource-token pairs "
              f"({len(over)} sent more than once) and {sum(counts[1] for counts in before.values())} 304s", flush=True)
        if over:
            failures.append(f"{len(over)} resource-token pairs were sent in full more than once, e.g. {over[:5]}")
        restarted = reports([start(binary, arguments, key, schema, "restarted", 1, arguments.seed + 1000)],
                            "phase 2", failures)
        for text in summary(restarted, 1):
            print(f"cache fleet proof: a restarted instance, the table warm: {text}", flush=True)
        after = upstream(key, arguments)
        sent = sum(after[pair][0] - before[pair][0] for pair in after)
        if sent or any(int(line["network"]) for line in restarted):
            failures.append(f"the restarted instance got {sent} full responses with the shared table warm")
        for line in lines + restarted:
            if int(line["wrong"]):
                failures.append(f"instance {line['instance']} pass {line['pass']}: {line['wrong']} responses named "
                                "another token than the call's")
            if int(line["failed"]):
                failures.append(f"instance {line['instance']} pass {line['pass']}: {line['failed']} calls failed")
    finally:
        psql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    for failure in failures:
        print(f"cache fleet proof: FAILED: {failure}")
    sys.exit(1 if failures else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("proof")
    run.add_argument("--instances", type=int, default=4)
    run.add_argument("--resources", type=int, default=200)
    run.add_argument("--tokens", type=int, default=2)
    run.add_argument("--passes", type=int, default=3)
    run.add_argument("--concurrency", type=int, default=8)
    run.add_argument("--seed", type=int, default=20261203)
    proof(parser.parse_args())


if __name__ == "__main__":
    main()
