#!/usr/bin/env bash
# The per-call cost gate. Counts, with callgrind, instructions and heap allocations per sequential 1 KB call for
# three stacks, each beside the raw transport doing the same work (scripts/benchmark-instructions.sh):
#   urlsession  the default client over URLSessionTransport, against raw URLSession configured the same way
#   pipeline    the README's pipeline over URLSession, against raw URLSession sending the same Authorization header
#   ahc         the default client over AsyncHTTPClientTransport, against raw AsyncHTTPClient
# and fails when a stack's ratio (EndpointKit / raw instructions) is more than 2 % above the committed baseline, or
# when EndpointKit's call makes one allocation more than the baseline's. Each callgrind run is made three times
# (COST_RUNS) and the lowest count kept: over URLSession a run's count varies by about 1 %, always upwards. The
# allocations gated are those made under EndpointKit's own functions (DHAT's stacks), the same in every run to
# within 0.1 a call; all allocations, which vary by a few a call over URLSession, are shown beside them. "One more"
# is more than half an allocation: the count per call is the difference of two runs.
#   scripts/cost-gate.sh             check against Benchmarks/Cost/baseline.json
#   scripts/cost-gate.sh --update    measure, and write the baseline and this run's report
#                                    (Benchmarks/Cost/baseline.json, Benchmarks/Cost/baseline.txt): commit both
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=Benchmarks/Cost/baseline.json
state=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-cost.XXXXXX")
trap 'rm -rf "$state"' EXIT
for stack in urlsession pipeline ahc; do
    echo "== $stack"
    COST_JSON="$state/$stack.json" COST_RUNS="${COST_RUNS:-3}" \
        scripts/benchmark-instructions.sh "$stack" "${COST_FEW:-20}" "${COST_MANY:-120}" \
        2>"$state/$stack.log" | tee "$state/$stack.txt" || { cat "$state/$stack.log" >&2; exit 1; }
done
python3 - "$state" "$baseline" "${1:-}" <<'PY'
import json, os, sys
state, baseline_path, mode = sys.argv[1], sys.argv[2], sys.argv[3]
stacks = ["urlsession", "pipeline", "ahc"]
measured = {stack: json.load(open(f"{state}/{stack}.json")) for stack in stacks}
if mode == "--update":
    os.makedirs(os.path.dirname(baseline_path), exist_ok=True)
    with open(baseline_path, "w", encoding="utf-8") as output:
        json.dump(measured, output, indent=2, sort_keys=True)
        output.write("\n")
    with open(baseline_path.replace(".json", ".txt"), "w", encoding="utf-8") as report:
        report.write("scripts/cost-gate.sh --update: instructions and heap allocations per 1 KB call\n\n")
        for stack in stacks:
            report.write(f"== {stack}\n" + open(f"{state}/{stack}.txt", encoding="utf-8").read() + "\n")
    print(f"wrote {baseline_path} and its report")
    sys.exit(0)
baseline = json.load(open(baseline_path))
failures = []
print(f"{'stack':<11} {'ratio':>7} {'baseline':>9} {'limit':>7}   {'own allocations':>15} {'baseline':>9}"
      f"   {'all allocations':>15} {'baseline':>9}")
for stack in stacks:
    now, then = measured[stack], baseline[stack]
    limit = then["ratio"] * 1.02
    print(f"{stack:<11} {now['ratio']:>7.3f} {then['ratio']:>9.3f} {limit:>7.3f}"
          f"   {now['kit_own_allocations']:>15.2f} {then['kit_own_allocations']:>9.2f}"
          f"   {now['kit_allocations']:>15.2f} {then['kit_allocations']:>9.2f}")
    if now["ratio"] > limit:
        failures.append(f"{stack}: EndpointKit / raw instructions {now['ratio']:.3f} is more than 2 % above the"
                        f" baseline's {then['ratio']:.3f}")
    if now["kit_own_allocations"] > then["kit_own_allocations"] + 0.5:
        failures.append(f"{stack}: EndpointKit's functions make {now['kit_own_allocations']:.2f} heap allocations"
                        f" per call, the baseline's {then['kit_own_allocations']:.2f}")
for failure in failures:
    print(f"cost gate: {failure}", file=sys.stderr)
if failures:
    print("A cost that is meant to grow changes the baseline: scripts/cost-gate.sh --update, and commit its"
          " figures with the change.", file=sys.stderr)
sys.exit(1 if failures else 0)
PY
