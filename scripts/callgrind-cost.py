#!/usr/bin/env python3
"""The cost of one call, from four callgrind runs: each side (raw, kit) with FEW and MANY calls.

    callgrind-cost.py STATE FEW MANY RAW_NAME [--json FILE]

STATE holds SIDE.COUNT.RUN.out (callgrind's data) and SIDE.COUNT.RUN.txt (callgrind_annotate's listing of it) for
each side and count, and one or more runs of each. The cost of one call is the difference between the MANY and the
FEW run divided by MANY - FEW, which leaves out start-up and shut-down; of several runs, the lowest count of each
is kept (what varies between runs is work added by timing: a loop turning while a response is awaited). It prints instructions per call by library and in total, and heap
allocations per call (calls of malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign, whoever made
them); --json also writes the totals, for scripts/cost-gate.sh, with the allocations made under EndpointKit's own
functions, read from DHAT's stacks of EndpointKit's side (kit.COUNT.dhat.json): unlike the totals, which vary by
a few per call over URLSession with the timing of its threads, those are the same in every run.
"""
import glob
import json
import re
import sys

ANNOTATED = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(.*?)(?:\s+\[(.+)\])?$")
NAMED = re.compile(r"c?fn=\((\d+)\)(?: (.*))?")
ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign"}


def by_library(path):
    """Program total and exclusive instructions per library (the object file of each function)."""
    totals, program = {}, 0
    for text in open(path, encoding="utf-8", errors="replace"):
        match = ANNOTATED.match(text)
        if not match:
            continue
        count = int(match.group(1).replace(",", ""))
        if match.group(2) == "PROGRAM TOTALS":
            program = count
            continue
        library = (match.group(3) or "?").rsplit("/", 1)[-1]
        totals[library] = totals.get(library, 0) + count
    return program, totals


def allocations(path):
    """Calls of the heap's allocating functions, read from the call records of callgrind's data.

    Names are compressed: `fn=(7) malloc` names function 7 once, later lines say `cfn=(7)`. A `calls=N` line
    counts the calls of the function the last `cfn=` line named.
    """
    names, callee, total = {}, None, 0
    for text in open(path, encoding="utf-8", errors="replace"):
        if text.startswith(("fn=", "cfn=")):
            match = NAMED.match(text.rstrip("\n"))
            if match is None:
                callee = None
                continue
            if match.group(2):
                names[match.group(1)] = match.group(2)
            callee = names.get(match.group(1)) if text.startswith("cfn=") else None
        elif text.startswith("calls="):
            if callee in ALLOCATORS:
                total += int(text.split()[0][len("calls="):])
            callee = None
    return total


# Mangled names of EndpointKit's modules (not of the benchmarks, whose names also start with EndpointKit).
OWN_MODULES = re.compile(r"(11EndpointKit|26EndpointKitAsyncHTTPClient|24EndpointKitObservability)")


def own_allocations(path):
    """Blocks allocated with a function of EndpointKit's modules on the stack, in a DHAT profile."""
    with open(path, encoding="utf-8") as profile:
        dhat = json.load(profile)
    frames = [frame.split(" (")[0] for frame in dhat["ftbl"]]
    own = [OWN_MODULES.search(frame) is not None for frame in frames]
    return sum(point["tbk"] for point in dhat["pps"] if any(own[index] for index in point["fs"]))


def lowest(state, side, count):
    """The run of SIDE with COUNT calls that executed the fewest instructions, and the fewest allocations of any."""
    runs = sorted(glob.glob(f"{state}/{side}.{count}.*.txt"))
    if not runs:
        sys.exit(f"callgrind-cost: no run of {side} with {count} calls in {state}")
    total, libraries = min((by_library(run) for run in runs), key=lambda result: result[0])
    allocated = min(allocations(run[: -len(".txt")] + ".out") for run in runs)
    return total, libraries, allocated


def per_call(state, side, few, many):
    low_total, low, low_allocated = lowest(state, side, few)
    high_total, high, high_allocated = lowest(state, side, many)
    calls = many - few
    libraries = {name: (high.get(name, 0) - low.get(name, 0)) / calls for name in set(low) | set(high)}
    return (high_total - low_total) / calls, libraries, (high_allocated - low_allocated) / calls


def main(arguments):
    state, few, many, raw_name = arguments[0], int(arguments[1]), int(arguments[2]), arguments[3]
    raw_total, raw, raw_allocations = per_call(state, "raw", few, many)
    kit_total, kit, kit_allocations = per_call(state, "kit", few, many)
    print(f"instructions per 1 KB call (callgrind, {many} - {few} sequential calls), by library")
    print(f"  {'library':<34} {raw_name:>19} {'EndpointKit':>12} {'difference':>11}")
    names = sorted(set(raw) | set(kit), key=lambda name: -(kit.get(name, 0) + raw.get(name, 0)))
    for name in names:
        r, k = raw.get(name, 0), kit.get(name, 0)
        if max(abs(r), abs(k)) < 2_000:
            continue
        print(f"  {name[:34]:<34} {r/1000:>18.0f}k {k/1000:>11.0f}k {(k - r)/1000:>+10.0f}k")
    ratio = kit_total / raw_total
    print(f"  {'total':<34} {raw_total/1000:>18.0f}k {kit_total/1000:>11.0f}k {(kit_total - raw_total)/1000:>+10.0f}k"
          f"   (EndpointKit / raw: {ratio:.3f})")
    print(f"  {'heap allocations':<34} {raw_allocations:>19.2f} {kit_allocations:>12.2f}"
          f" {kit_allocations - raw_allocations:>+11.2f}")
    if "--json" in arguments:
        own = (own_allocations(f"{state}/kit.{many}.dhat.json") - own_allocations(f"{state}/kit.{few}.dhat.json")) / (
            many - few
        )
        print(f"  {'of which under EndpointKit (DHAT)':<34} {'':>19} {own:>12.2f}")
        figures = {
            "kit_own_allocations": round(own, 2),
            "raw_instructions": round(raw_total),
            "kit_instructions": round(kit_total),
            "ratio": round(ratio, 4),
            "raw_allocations": round(raw_allocations, 2),
            "kit_allocations": round(kit_allocations, 2),
        }
        with open(arguments[arguments.index("--json") + 1], "w", encoding="utf-8") as output:
            json.dump(figures, output)


if __name__ == "__main__":
    main(sys.argv[1:])
