#!/usr/bin/env python3
"""The fleet rate limit's proof: N processes share one limit in PostgreSQL and the upstream never counts more.

    scripts/ratelimit-fleet.py proof [--seconds S] [--limit L] [--concurrency C] [--margin-ms M] [--phases 1234]
                                     [--minimum-use U] [--reservations leased:16,per-call]

Needs the servers of scripts/test-servers.sh (its variables in the environment: the fault server is the upstream,
PostgreSQL the limits) and ENDPOINTKIT_BIN, a build folder holding EndpointKitPostgresFleet (every trait on).

Each phase starts its instances (`EndpointKitPostgresFleet limiter`), each of which opens its connections first (C
calls to the upstream outside the limit, C statements), as a server that has been running has them, then drives C
calls at once for S seconds at
the fault server's /limited/KEY, which keeps L requests per second in any window (a sliding window, counted at
arrival) and answers 429 beyond it. Every instance's RateLimiter keeps the same RateLimit(L, per: 1 s) in
PostgreSQL. The phases: 4 instances; 8 instances; 4 instances failing closed while PostgreSQL is restarted
(`pg_ctl restart -m immediate`) a third of the way and killed (SIGKILL, down 3 s) two thirds of the way; the same
with a local share of L / 4 each, the limiter waiting at most 1 s for a slot (a share begins maxWait and a window
after PostgreSQL was lost). Every phase runs once for each way of taking slots (--reservations: leased in blocks of
up to 16, the default, and one trip per call), interleaved phase by phase.

Passes when, in every phase, the upstream never counted more than L in any window of one second and never had to
refuse a call for going over, nor did the limiters release more than L in any second, and, in the phases without faults, the fleet used at least 90 % of the limit (a speed
goal: --minimum-use 0 reports it without failing, as scripts/test.sh does with its debug build). Prints
per phase: the upstream's count, its most in one window, the use of the limit (arrivals over their span), the
spread between instances (fewest and most sent), and the limiter's own cost per call (the time of a reservation:
median and 99th percentile, the worst instance's, and the 99th percentile of the reservations after each instance's
first second, whose calls all wait for a first trip), and, from the time each instance stamps on a call as its
limiter lets it go (x-released), the most in one second counted by release and the time from release to arrival:
a count by arrival over the limit with one by release within it is the calls' way to the upstream taking longer
than half the margin. Full size: 60 s per phase, L = 100, C = 16; CI runs it small.
"""

import argparse
import subprocess
import sys
import threading
import time
import uuid

from fleet_common import ENV, fleet_binary, get_json, kill_postgres, restart_postgres


def run_phase(binary, name, instances, arguments, policy, faults, max_wait_ms, reservation):
    """Runs one phase; returns (its figures as text, its failures)."""
    key, schema = f"limits-{uuid.uuid4().hex[:12]}", "fleet_limits"
    command = lambda number: [binary, "limiter", schema, ENV["ENDPOINTKIT_FAULT_URL"], key, f"i{number}",
                              str(arguments.limit), "1000", str(arguments.concurrency), str(arguments.seconds), policy,
                              str(arguments.margin_ms), str(max_wait_ms), reservation]
    processes = [subprocess.Popen(command(number), stdout=subprocess.PIPE, text=True) for number in range(instances)]
    chaos = threading.Thread(target=inflict, args=(faults, arguments.seconds))
    chaos.start()
    outputs = [finish(process, arguments.seconds + 120) for process in processes]
    chaos.join()
    failures = [f"{name}: instance {number} exited {process.returncode} with no report: {output.strip()[-300:]}"
                for number, (process, output) in enumerate(zip(processes, outputs))
                if process.returncode != 0 and "limiter " not in output]
    reports = [dict(item.split("=") for item in line.split()[2:])
               for output in outputs for line in output.splitlines() if line.startswith("limiter ")]
    window = get_json(f"/window/{key}?period=1000")
    use = (window["count"] - 1) / (window["span"] * arguments.limit) if window["span"] > 0 else 0
    sent = sorted(window["by"].values()) or [0]
    p50 = max((int(report["p50"]) for report in reports), default=0)
    p99 = max((int(report["p99"]) for report in reports), default=0)
    warm99 = max((int(report["warm99"]) for report in reports), default=0)
    errors = sum(int(report["failed"]) + int(report["limited"]) for report in reports)
    retaken = sum(int(report["retaken"]) for report in reports)
    figures = (f"{name}: upstream counted {window['count']}, at most {window['max']} in one second (limit "
               f"{arguments.limit}; first at {window['max_at']:.1f} s), {window['over']} refused for going over; use {use:.1%} of the limit; per "
               f"instance {sent[0]}-{sent[-1]} sent (spread {sent[-1] / max(1, sent[0]):.2f}); calls that failed "
               f"{errors}; slots retaken for lateness {retaken}; reservation p50 {p50} µs, p99 {p99} µs, "
               f"p99 after each instance's first second {warm99} µs (worst instance); counted as the limiters released the calls, "
               f"at most {window['max_released']} in one second, release to arrival median "
               f"{window['transit_p50'] * 1000:.1f} ms, most {window['transit_max'] * 1000:.1f} ms")
    if window["max"] > arguments.limit or window["over"]:
        failures.append(f"{name}: the upstream counted {window['max']} in one second, {window['over']} over")
    if window["max_released"] > arguments.limit:
        failures.append(f"{name}: the limiters released {window['max_released']} calls in one second")
    if not faults and use < arguments.minimum_use:
        failures.append(f"{name}: the fleet used {use:.1%} of the limit, under {arguments.minimum_use:.0%}")
    return figures, failures


def finish(process, seconds):
    """The output of `process`, which reports, then shuts down; one still running `seconds` after its phase began is
    killed (said, not failed: its report is what the proof reads)."""
    try:
        return process.communicate(timeout=seconds)[0]
    except subprocess.TimeoutExpired:
        process.kill()
        output = process.communicate()[0]
        print(f"rate limit fleet proof: warning: an instance had not exited {seconds} s after its phase began; killed",
              flush=True)
        return output


def inflict(faults, seconds):
    """Restarts PostgreSQL a third of the way through the phase and kills it two thirds of the way, when asked."""
    if not faults:
        return
    time.sleep(seconds / 3)
    restart_postgres()
    time.sleep(seconds / 3)
    kill_postgres(3)


def proof(arguments):
    binary = fleet_binary("ratelimit-fleet")
    print(f"rate limit fleet proof: {arguments.seconds} s per phase, limit {arguments.limit} per second, "
          f"{arguments.concurrency} calls at once per instance, margin {arguments.margin_ms} ms")
    # A local share begins maxWait and a window after PostgreSQL was lost (slots it granted may lie that far ahead):
    # its phase's limiter waits at most 1 s for a slot, so that the share begins within the outage.
    phases = [
        ("4 instances", 4, "closed", False, 60000),
        ("8 instances", 8, "closed", False, 60000),
        ("4 instances, PostgreSQL restarted and killed, failing closed", 4, "closed", True, 60000),
        ("4 instances, PostgreSQL restarted and killed, local shares (maxWait 1 s)", 4, "share:4", True, 1000),
    ]
    failures = []
    for number, (name, instances, policy, faults, max_wait_ms) in enumerate(phases, start=1):
        if str(number) not in arguments.phases:
            continue
        for reservation in arguments.reservations.split(","):
            figures, failed = run_phase(binary, f"{name} [{reservation}]", instances, arguments, policy, faults,
                                        max_wait_ms, reservation)
            print(f"rate limit fleet proof: {figures}", flush=True)
            failures += failed
    for failure in failures:
        print(f"rate limit fleet proof: FAILED: {failure}")
    sys.exit(1 if failures else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("proof")
    run.add_argument("--seconds", type=int, default=60)
    run.add_argument("--limit", type=int, default=100)
    run.add_argument("--concurrency", type=int, default=16)
    run.add_argument("--margin-ms", type=int, default=50, help="the RateLimit's margin")
    run.add_argument("--phases", default="1234", help="which phases to run, by number")
    run.add_argument("--reservations", default="leased:16,per-call",
                     help="how the limiters take their slots, each phase run once per item: leased:N or per-call")
    run.add_argument("--minimum-use", type=float, default=0.90,
                     help="the least use of the limit that passes (a speed goal: CI's debug build on a loaded "
                          "machine gives 0, and reports the figure)")
    proof(parser.parse_args())


if __name__ == "__main__":
    main()
